package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.schedule.DurationText;
import java.time.Duration;

/**
 * An outgoing rate limit: at most {@code permits} requests per {@code per}, written {@code 100/s},
 * {@code 6000/m}, {@code 20/h} or {@code 5/10s}. It allows a burst of a tenth of a second's worth (at
 * least one request), so in any second at most 10 % more than the rate go out.
 *
 * @param permits requests per period, at least 1
 * @param per the period
 */
public record Rate(long permits, Duration per) {
  /** At most this many requests per second. */
  static final long MAX_PER_SECOND = 1_000_000;

  /**
   * Reads a rate.
   *
   * @param field the field to name in errors, e.g. {@code options.max-rate}
   * @throws InvalidInputException naming {@code field}
   */
  public static Rate parse(String text, String field) {
    String t = text == null ? "" : text.strip();
    int slash = t.indexOf('/');
    if (slash <= 0 || slash == t.length() - 1) {
      throw new InvalidInputException(field, "'" + t + "' is not a rate; write requests per period, e.g. 100/s,"
          + " 6000/m or 5/10s");
    }
    long permits;
    try {
      permits = Long.parseLong(t.substring(0, slash).strip());
    } catch (NumberFormatException e) {
      permits = -1;
    }
    if (permits < 1) {
      throw new InvalidInputException(field, "'" + t + "': the number of requests must be a whole number >= 1");
    }
    String unit = t.substring(slash + 1).strip();
    Duration per = switch (unit) {
      case "s" -> Duration.ofSeconds(1);
      case "m" -> Duration.ofMinutes(1);
      case "h" -> Duration.ofHours(1);
      case "d" -> Duration.ofDays(1);
      default -> DurationText.parse(unit, field);
    };
    if (per.isZero() || per.isNegative()) {
      throw new InvalidInputException(field, "'" + t + "': the period must be positive");
    }
    Rate r = new Rate(permits, per);
    if (r.intervalNanos() < 1_000_000_000L / MAX_PER_SECOND) {
      throw new InvalidInputException(field, "'" + t + "' is over " + MAX_PER_SECOND + " per second");
    }
    return r;
  }

  /** The time between two requests at this rate. */
  long intervalNanos() {
    return Math.max(1, per.toNanos() / permits);
  }

  /** Requests allowed at once after a quiet spell: a tenth of a second's worth, at least 1. */
  long burst() {
    return Math.max(1, 100_000_000L / intervalNanos());
  }

  @Override
  public String toString() {
    String unit = per.equals(Duration.ofSeconds(1)) ? "s" : per.equals(Duration.ofMinutes(1)) ? "m"
        : per.equals(Duration.ofHours(1)) ? "h" : per.equals(Duration.ofDays(1)) ? "d" : DurationText.format(per);
    return permits + "/" + unit;
  }
}
