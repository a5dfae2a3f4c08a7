package dev.herald.schedule;

import dev.herald.InvalidInputException;
import java.time.Duration;

/**
 * The one way Herald writes durations in configuration, APIs and the console: a whole number and a
 * unit ({@code 250ms}, {@code 5s}, {@code 5m}, {@code 1h}, {@code 1d}). ISO-8601 ({@code PT5M}) is
 * exact but unreadable for operators; this form is both, and {@link #format} gives back exactly
 * what {@link #parse} reads.
 *
 * <p>Only whole milliseconds from zero up to {@code Long.MAX_VALUE} ms can be written, so every
 * parsed duration survives {@link Duration#toMillis()} and a round trip through text.
 */
public final class DurationText {
  private static final String EXPECTED =
      "expected a whole number followed by ms, s, m, h or d (e.g. 5s)";

  private static final long MS_PER_SECOND = 1_000L;
  private static final long MS_PER_MINUTE = 60 * MS_PER_SECOND;
  private static final long MS_PER_HOUR = 60 * MS_PER_MINUTE;
  private static final long MS_PER_DAY = 24 * MS_PER_HOUR;

  private DurationText() {}

  /**
   * Reads one duration such as {@code 5m}; a bare {@code 0} means zero. Surrounding whitespace is
   * ignored; anything else (signs, fractions, spaces before the unit, upper-case units) is refused.
   *
   * @param field the field path reported when the text is refused
   * @throws InvalidInputException naming {@code field} when the text is not a duration or is too
   *     large
   */
  public static Duration parse(String text, String field) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(field, "must not be blank");
    }
    String t = text.strip();
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    int digits = 0;
    while (digits < t.length() && isAsciiDigit(t.charAt(digits))) {
      digits++;
    }
    long unitMillis = digits == 0 ? 0 : unitMillis(t.substring(digits));
    if (unitMillis == 0) {
      throw new InvalidInputException(field, quote(t) + " is not a duration: " + EXPECTED);
    }
    long amount = 0;
    try {
      for (int i = 0; i < digits; i++) {
        amount = Math.addExact(Math.multiplyExact(amount, 10), t.charAt(i) - '0');
      }
      return Duration.ofMillis(Math.multiplyExact(amount, unitMillis));
    } catch (ArithmeticException e) {
      throw new InvalidInputException(
          field, quote(t) + " is too large: at most " + Long.MAX_VALUE + "ms");
    }
  }

  /**
   * Writes {@code duration} in the largest unit that divides it exactly: {@code 300000ms} becomes
   * {@code 5m}, {@code 1500ms} stays {@code 1500ms}, zero is {@code 0s}.
   *
   * @throws IllegalArgumentException if the duration is negative, not a whole number of
   *     milliseconds, or longer than {@code Long.MAX_VALUE} ms, since no text would read back to it
   */
  public static String format(Duration duration) {
    long ms = toWholeMillis(duration);
    if (ms == 0) {
      return "0s";
    }
    if (ms % MS_PER_DAY == 0) {
      return ms / MS_PER_DAY + "d";
    }
    if (ms % MS_PER_HOUR == 0) {
      return ms / MS_PER_HOUR + "h";
    }
    if (ms % MS_PER_MINUTE == 0) {
      return ms / MS_PER_MINUTE + "m";
    }
    if (ms % MS_PER_SECOND == 0) {
      return ms / MS_PER_SECOND + "s";
    }
    return ms + "ms";
  }

  /** Why {@code duration} cannot be written as text, or {@code null} if it can. */
  static String unwritableReason(Duration duration) {
    if (duration.isNegative()) {
      return "must not be negative, was " + duration;
    }
    if (duration.getNano() % 1_000_000 != 0) {
      return "must be a whole number of milliseconds, was " + duration;
    }
    try {
      duration.toMillis();
      return null;
    } catch (ArithmeticException e) {
      return "must be at most " + Long.MAX_VALUE + "ms, was " + duration;
    }
  }

  private static long toWholeMillis(Duration duration) {
    String reason = unwritableReason(duration);
    if (reason != null) {
      throw new IllegalArgumentException("duration " + reason);
    }
    return duration.toMillis();
  }

  private static long unitMillis(String unit) {
    return switch (unit) {
      case "ms" -> 1;
      case "s" -> MS_PER_SECOND;
      case "m" -> MS_PER_MINUTE;
      case "h" -> MS_PER_HOUR;
      case "d" -> MS_PER_DAY;
      default -> 0;
    };
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static String quote(String text) {
    return "'" + text + "'";
  }
}
