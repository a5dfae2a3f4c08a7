package dev.herald.recurring;

import dev.herald.InvalidInputException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Unix cron expression of five fields, {@code minute hour day-of-month month day-of-week}, each
 * {@code *}, a value, a range {@code a-b}, a step {@code * /n} or {@code a-b/n}, or a list of those
 * separated by commas; months and days may be named ({@code JAN}, {@code MON}); day-of-week 0 and 7
 * are Sunday. As in Vixie cron, when both day fields are restricted a day matching either matches.
 * Also {@code @yearly}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @hourly}.
 *
 * <p>Slots are wall-clock times in a time zone. A time that a daylight-saving change skips (02:30 on
 * the spring-forward night in Europe) falls on the first instant after the gap (03:30 summer time),
 * once; a time that occurs twice (02:30 on the fall-back night) is a slot once, at its first occurrence.
 */
public final class CronExpression {
  private static final Map<String, String> MACROS = Map.of("@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *",
      "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0", "@daily", "0 0 * * *", "@midnight", "0 0 * * *",
      "@hourly", "0 * * * *");
  private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
      "OCT", "NOV", "DEC");
  private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
  /** How far ahead a next slot is looked for: an expression such as {@code 0 0 30 2 *} has none. */
  private static final int MAX_DAYS = 5 * 366;

  private final String text;
  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean anyDayOfMonth;
  private final boolean anyDayOfWeek;

  private CronExpression(String text, String[] f) {
    this.text = text;
    this.minutes = field(f[0], 0, 59, null, "minute");
    this.hours = field(f[1], 0, 23, null, "hour");
    this.daysOfMonth = field(f[2], 1, 31, null, "day of month");
    this.months = field(f[3], 1, 12, MONTHS, "month");
    BitSet dow = field(f[4], 0, 7, DAYS, "day of week");
    if (dow.get(7)) {
      dow.set(0);
    }
    this.daysOfWeek = dow;
    this.anyDayOfMonth = f[2].equals("*");
    this.anyDayOfWeek = f[4].equals("*");
  }

  /**
   * @throws InvalidInputException naming {@code cron}, the field and why
   */
  public static CronExpression parse(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException("cron", "is required, e.g. '0 6 * * MON-FRI' (minute hour day month weekday)");
    }
    String t = text.strip().replaceAll("\\s+", " ");
    String expanded = MACROS.getOrDefault(t.toLowerCase(Locale.ROOT), t);
    if (expanded.startsWith("@")) {
      throw new InvalidInputException("cron", "'" + t + "' is not one of " + String.join(", ", MACROS.keySet()
          .stream().sorted().toList()));
    }
    String[] f = expanded.split(" ");
    if (f.length != 5) {
      throw new InvalidInputException("cron", "'" + t + "' has " + f.length + " fields; give five: minute hour"
          + " day-of-month month day-of-week, e.g. '30 2 * * *'");
    }
    CronExpression c = new CronExpression(t, f);
    if (c.next(Instant.EPOCH, java.time.ZoneOffset.UTC) == null
        && c.next(Instant.parse("2028-01-01T00:00:00Z"), java.time.ZoneOffset.UTC) == null) {
      throw new InvalidInputException("cron", "'" + t + "' matches no day (e.g. 30 February)");
    }
    return c;
  }

  private static BitSet field(String spec, int min, int max, List<String> names, String what) {
    BitSet out = new BitSet(max + 1);
    for (String part : spec.split(",", -1)) {
      String range = part;
      int step = 1;
      int slash = part.indexOf('/');
      if (slash >= 0) {
        range = part.substring(0, slash);
        step = number(part.substring(slash + 1), 1, max - min + 1, null, what, "step");
      }
      int from;
      int to;
      if (range.equals("*")) {
        from = min;
        to = max;
      } else if (range.contains("-")) {
        String[] ab = range.split("-", -1);
        if (ab.length != 2) {
          throw invalid(what, "'" + part + "' is not a range a-b");
        }
        from = number(ab[0], min, max, names, what, "value");
        to = number(ab[1], min, max, names, what, "value");
        if (from > to) {
          throw invalid(what, "'" + part + "' runs backwards");
        }
      } else {
        from = number(range, min, max, names, what, "value");
        to = slash >= 0 ? max : from;
      }
      for (int v = from; v <= to; v += step) {
        out.set(v);
      }
    }
    return out;
  }

  private static int number(String s, int min, int max, List<String> names, String what, String kind) {
    if (names != null) {
      int i = names.indexOf(s.toUpperCase(Locale.ROOT));
      if (i >= 0) {
        return names == MONTHS ? i + 1 : i;
      }
    }
    int v;
    try {
      v = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw invalid(what, kind + " '" + s + "' is not a number" + (names == null ? "" : " or a name such as "
          + names.getFirst()));
    }
    if (v < min || v > max) {
      throw invalid(what, kind + " " + v + " is outside " + min + "-" + max);
    }
    return v;
  }

  private static InvalidInputException invalid(String what, String why) {
    return new InvalidInputException("cron", what + ": " + why);
  }

  /** The first slot strictly after {@code after} in {@code zone}; null if there is none within five years. */
  public Instant next(Instant after, ZoneId zone) {
    LocalDateTime start = after.atZone(zone).toLocalDateTime().truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    LocalDate day = start.toLocalDate();
    for (int d = 0; d < MAX_DAYS; d++, day = day.plusDays(1)) {
      if (!months.get(day.getMonthValue()) || !dayMatches(day)) {
        continue;
      }
      for (int h = hours.nextSetBit(0); h >= 0; h = hours.nextSetBit(h + 1)) {
        for (int m = minutes.nextSetBit(0); m >= 0; m = minutes.nextSetBit(m + 1)) {
          LocalDateTime local = LocalDateTime.of(day, LocalTime.of(h, m));
          if (local.isBefore(start)) {
            continue;
          }
          // a skipped time moves past the gap; a repeated one takes its earlier offset
          Instant at = ZonedDateTime.ofLocal(local, zone, null).toInstant();
          if (at.isAfter(after)) {
            return at;
          }
        }
      }
    }
    return null;
  }

  private boolean dayMatches(LocalDate day) {
    boolean dom = daysOfMonth.get(day.getDayOfMonth());
    boolean dow = daysOfWeek.get(day.getDayOfWeek().getValue() % 7);
    if (anyDayOfMonth || anyDayOfWeek) {
      return dom && dow;
    }
    return dom || dow;
  }

  @Override
  public String toString() {
    return text;
  }
}
