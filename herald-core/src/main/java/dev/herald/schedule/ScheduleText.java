package dev.herald.schedule;

import dev.herald.InvalidInputException;
import dev.herald.schedule.RetrySchedule.DelayList;
import dev.herald.schedule.RetrySchedule.Exponential;
import dev.herald.schedule.RetrySchedule.PerAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** Reads the text forms of {@link RetrySchedule}, with errors that name the field and the entry. */
final class ScheduleText {
  private ScheduleText() {}

  static DelayList delayList(String text, String field) {
    String[] parts = text.split(",", -1);
    List<Duration> delays = new ArrayList<>(parts.length);
    for (int i = 0; i < parts.length; i++) {
      String label = "entry " + (i + 1);
      String part = parts[i].strip();
      if (part.isEmpty()) {
        throw new InvalidInputException(
            field,
            label + " is empty: expected delays separated by commas (e.g. 5s, 5m, 1h, 1d)");
      }
      delays.add(parseDuration(part, field, label));
    }
    return new DelayList(delays);
  }

  static PerAttempt perAttempt(String text, String field) {
    String[] parts = text.split(",", -1);
    TreeMap<Integer, Duration> delays = new TreeMap<>();
    int previous = 0;
    for (int i = 0; i < parts.length; i++) {
      String label = "entry " + (i + 1);
      String part = parts[i].strip();
      int colon = part.indexOf(':');
      if (colon < 0) {
        throw new InvalidInputException(
            field,
            (part.isEmpty() ? label + " is empty" : label + " " + quote(part) + " has no ':'")
                + ": expected attempt:delay pairs separated by commas (e.g. 1:0s, 2:1m, 3:10m)");
      }
      String number = part.substring(0, colon).strip();
      int attempt = parseAttemptNumber(number);
      if (attempt < 0) {
        throw new InvalidInputException(
            field,
            label + " " + quote(number) + " is not an attempt number: expected a whole number >= 1");
      }
      if (attempt < 1) {
        throw new InvalidInputException(field, "attempt numbers start at 1, was " + attempt);
      }
      if (attempt == previous) {
        throw new InvalidInputException(field, "attempt " + attempt + " appears twice");
      }
      if (attempt < previous) {
        throw new InvalidInputException(
            field,
            "attempt "
                + attempt
                + " is out of order: it follows attempt "
                + previous
                + "; list attempts in increasing order");
      }
      delays.put(attempt, parseDuration(part.substring(colon + 1), field, "attempt " + attempt));
      previous = attempt;
    }
    return new PerAttempt(PerAttempt.checkedCopy(delays, field));
  }

  /** The number, or -1 if it is not one or more ASCII digits that fit in an int. */
  private static int parseAttemptNumber(String text) {
    if (text.isEmpty() || text.length() > 10) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value > Integer.MAX_VALUE ? -1 : (int) value;
  }

  static Exponential exponential(String text, String field) {
    String rest = text.substring(Exponential.KEYWORD.length()).stripLeading();
    if (!rest.startsWith("(")) {
      throw new InvalidInputException(
          field, quote(text) + " is not a schedule: expected " + quote(Exponential.EXAMPLE));
    }
    if (!rest.endsWith(")")) {
      throw new InvalidInputException(
          field, quote(text) + " does not end with ')': expected " + quote(Exponential.EXAMPLE));
    }
    String arguments = rest.substring(1, rest.length() - 1);
    String[] values = new String[4]; // base, factor, cap, jitter
    if (!arguments.isBlank()) {
      String[] parts = arguments.split(",", -1);
      for (int i = 0; i < parts.length; i++) {
        String part = parts[i].strip();
        int equals = part.indexOf('=');
        if (equals < 0) {
          throw new InvalidInputException(
              field,
              (part.isEmpty()
                      ? "argument " + (i + 1) + " is empty"
                      : "argument " + (i + 1) + " " + quote(part) + " has no '='")
                  + ": expected name=value pairs such as "
                  + quote(Exponential.EXAMPLE));
        }
        String name = part.substring(0, equals).strip();
        int index =
            switch (name) {
              case "base" -> 0;
              case "factor" -> 1;
              case "cap" -> 2;
              case "jitter" -> 3;
              default ->
                  throw new InvalidInputException(
                      field,
                      "unknown argument "
                          + quote(name)
                          + ": expected base, factor, cap or jitter");
            };
        if (values[index] != null) {
          throw new InvalidInputException(field + "." + name, "is given twice");
        }
        values[index] = part.substring(equals + 1);
      }
    }
    if (values[0] == null) {
      throw new InvalidInputException(field + ".base", "is required (e.g. base=1s)");
    }
    if (values[2] == null) {
      throw new InvalidInputException(field + ".cap", "is required (e.g. cap=1h)");
    }
    Duration base = DurationText.parse(values[0], field + ".base");
    double factor = values[1] == null ? 2 : parseNumber(values[1], field + ".factor");
    Duration cap = DurationText.parse(values[2], field + ".cap");
    double jitter = values[3] == null ? 0 : parseNumber(values[3], field + ".jitter");
    Exponential.check(base, factor, cap, jitter, field);
    return new Exponential(base, factor, cap, jitter);
  }

  /** A plain decimal such as {@code 2}, {@code 1.5} or {@code -1}; no exponents, NaN or hex. */
  private static double parseNumber(String text, String field) {
    String t = text.strip();
    int i = t.startsWith("-") ? 1 : 0;
    int integerDigits = countDigits(t, i);
    i += integerDigits;
    boolean valid = integerDigits > 0;
    if (valid && i < t.length() && t.charAt(i) == '.') {
      int fractionDigits = countDigits(t, i + 1);
      valid = fractionDigits > 0;
      i += 1 + fractionDigits;
    }
    if (!valid || i != t.length()) {
      throw new InvalidInputException(
          field, quote(t) + " is not a number: expected a decimal such as 2 or 0.5");
    }
    return Double.parseDouble(t);
  }

  private static int countDigits(String text, int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
      i++;
    }
    return i - from;
  }

  private static Duration parseDuration(String text, String field, String label) {
    try {
      return DurationText.parse(text, field);
    } catch (InvalidInputException e) {
      throw new InvalidInputException(field, label + " " + e.reason());
    }
  }

  private static String quote(String text) {
    return DurationText.quote(text);
  }
}
