package dev.herald.schedule;

import dev.herald.InvalidInputException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * How long a notice waits before its next attempt after a failed one. A schedule is a value: it is
 * stored as text on a definition, compared with {@code equals}, and turned into a delay with
 * {@link #delayBefore}; it knows nothing about clocks or attempt limits, which the engine applies.
 *
 * <p>Four forms cover the design documents, each with a text that {@link #parse} reads back to an
 * equal schedule:
 *
 * <ul>
 *   <li>{@link Fixed} {@code 5m}: every retry waits the same;
 *   <li>{@link DelayList} {@code 5s, 5m, 1h, 1d}: the n-th retry waits the n-th delay, then the
 *       last one again;
 *   <li>{@link PerAttempt} {@code 1:0s, 2:1m, 3:2m, 4:10m, 5:1h}: attempt number to the delay
 *       since the previous attempt, gaps filled from below;
 *   <li>{@link Exponential} {@code exponential(base=1s, factor=2, cap=1h, jitter=0.2)}: growing
 *       delays, capped, optionally spread so that a crowd of failures does not retry in lockstep.
 * </ul>
 *
 * <p>Invalid schedules, whether parsed or built with the factories, are refused with an {@link
 * InvalidInputException} that names the field ({@code retrySchedule} by default, or {@code
 * retrySchedule.factor} and the like for one argument) and quotes the offending piece.
 */
public sealed interface RetrySchedule
    permits RetrySchedule.Fixed,
        RetrySchedule.DelayList,
        RetrySchedule.PerAttempt,
        RetrySchedule.Exponential {

  /**
   * The wait between the end of attempt {@code attempt - 1} and the start of attempt {@code
   * attempt}. Attempt 1 happens at the fire time, so the first retry is attempt 2.
   *
   * @param random the source of jitter; only {@link Exponential} with a jitter draws from it, so
   *     every other schedule is deterministic
   * @throws IllegalArgumentException if {@code attempt < 2}
   */
  Duration delayBefore(int attempt, RandomGenerator random);

  /**
   * The longest delay a schedule may give: ten years. Times are stored as epoch milliseconds, and
   * a delay this long already means "never" to any receiver; longer ones would overflow on the way.
   */
  Duration MAX_DELAY = Duration.ofDays(3650);

  /** The canonical text of this schedule; {@link #parse} reads it back to an equal schedule. */
  String text();

  /**
   * Reads a schedule from its text, reporting errors against the field {@code retrySchedule}.
   *
   * @throws InvalidInputException if the text is blank or not a valid schedule
   */
  static RetrySchedule parse(String text) {
    return parse(text, "retrySchedule");
  }

  /**
   * Reads a schedule from its text, reporting errors against {@code field} (e.g. {@code
   * definitions[3].retrySchedule}). The form is chosen by the text: {@code exponential(...)}, else
   * {@code N:delay} pairs if it has a colon, else a list if it has a comma, else one fixed delay.
   *
   * @throws InvalidInputException if the text is blank or not a valid schedule
   */
  static RetrySchedule parse(String text, String field) {
    Objects.requireNonNull(field, "field");
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(field, "must not be blank");
    }
    String t = text.strip();
    if (t.regionMatches(true, 0, Exponential.KEYWORD, 0, Exponential.KEYWORD.length())) {
      return ScheduleText.exponential(t, field);
    }
    if (t.indexOf(':') >= 0) {
      return ScheduleText.perAttempt(t, field);
    }
    if (t.indexOf(',') >= 0) {
      return ScheduleText.delayList(t, field);
    }
    return new Fixed(DurationText.parse(t, field));
  }

  /** Every retry waits {@code delay}; zero retries at once. */
  static Fixed fixed(Duration delay) {
    return new Fixed(delay);
  }

  /** The n-th retry waits the n-th delay; past the end the last delay repeats. */
  static DelayList list(Duration... delays) {
    return new DelayList(Arrays.asList(delays));
  }

  /** The n-th retry waits the n-th delay; past the end the last delay repeats. */
  static DelayList list(List<Duration> delays) {
    return new DelayList(delays);
  }

  /** Attempt number to the delay since the previous attempt; see {@link PerAttempt}. */
  static PerAttempt perAttempt(Map<Integer, Duration> delays) {
    return new PerAttempt(new TreeMap<>(delays));
  }

  /** {@code min(cap, base * factor^(attempt - 2))}, less up to {@code jitter} of it at random. */
  static Exponential exponential(Duration base, double factor, Duration cap, double jitter) {
    return new Exponential(base, factor, cap, jitter);
  }

  /** Every retry waits {@link #delay()}. Text: {@code 5m}. */
  record Fixed(Duration delay) implements RetrySchedule {
    /**
     * @throws InvalidInputException if the delay is negative or not whole milliseconds
     */
    public Fixed {
      requireWritable(delay, "retrySchedule", "delay");
    }

    @Override
    public Duration delayBefore(int attempt, RandomGenerator random) {
      checkAttempt(attempt, random);
      return delay;
    }

    @Override
    public String text() {
      return DurationText.format(delay);
    }

    @Override
    public String toString() {
      return text();
    }
  }

  /**
   * The n-th retry (attempt n + 1) waits the n-th of {@link #delays()}; once they run out the last
   * one repeats. Text: {@code 5s, 5m, 1h, 1d}; at least two delays, since one is a {@link Fixed}.
   */
  record DelayList(List<Duration> delays) implements RetrySchedule {
    /**
     * @throws InvalidInputException if there are fewer than two delays or one is negative or not
     *     whole milliseconds
     */
    public DelayList {
      delays = List.copyOf(delays);
      check(delays, "retrySchedule");
    }

    @Override
    public Duration delayBefore(int attempt, RandomGenerator random) {
      checkAttempt(attempt, random);
      return delays.get(Math.min(attempt - 2, delays.size() - 1));
    }

    @Override
    public String text() {
      StringJoiner text = new StringJoiner(", ");
      for (Duration delay : delays) {
        text.add(DurationText.format(delay));
      }
      return text.toString();
    }

    @Override
    public String toString() {
      return text();
    }

    private static void check(List<Duration> delays, String field) {
      if (delays.size() < 2) {
        throw new InvalidInputException(
            field,
            "a list needs at least 2 delays, was "
                + delays.size()
                + "; write a single delay for a fixed schedule");
      }
      for (int i = 0; i < delays.size(); i++) {
        requireWritable(delays.get(i), field, "entry " + (i + 1));
      }
    }

  }

  /**
   * Document 001's notify rule: attempt number to the delay since the previous attempt. Attempt n
   * waits the delay of the greatest key {@code <= n}, so gaps are filled from below and attempts
   * past the last key repeat its delay. Attempt 1 is always at the fire time: key 1 may be written
   * (only as {@code 1:0s}) and attempts before the first key {@code >= 2} retry at once. Text:
   * {@code 1:0s, 2:1m, 3:2m, 4:10m, 5:1h}, keys strictly increasing.
   */
  record PerAttempt(NavigableMap<Integer, Duration> delays) implements RetrySchedule {
    /**
     * Copies {@code delays} into an unmodifiable map in natural key order, whatever the comparator
     * of the given map.
     *
     * @throws InvalidInputException if a key is below 1, key 1 has a non-zero delay, no key is
     *     {@code >= 2}, or a delay is negative or not whole milliseconds
     */
    public PerAttempt {
      delays = checkedCopy(delays, "retrySchedule");
    }

    @Override
    public Duration delayBefore(int attempt, RandomGenerator random) {
      checkAttempt(attempt, random);
      Map.Entry<Integer, Duration> entry = delays.floorEntry(attempt);
      return entry == null ? Duration.ZERO : entry.getValue();
    }

    @Override
    public String text() {
      StringJoiner text = new StringJoiner(", ");
      delays.forEach((attempt, delay) -> text.add(attempt + ":" + DurationText.format(delay)));
      return text.toString();
    }

    @Override
    public String toString() {
      return text();
    }

    static NavigableMap<Integer, Duration> checkedCopy(
        Map<Integer, Duration> delays, String field) {
      TreeMap<Integer, Duration> copy = new TreeMap<>();
      copy.putAll(delays); // not new TreeMap<>(sorted): that would keep a foreign comparator
      copy.forEach(
          (attempt, delay) -> {
            Objects.requireNonNull(delay, () -> "delay of attempt " + attempt);
            if (attempt < 1) {
              throw new InvalidInputException(
                  field, "attempt numbers start at 1, was " + attempt);
            }
            requireWritable(delay, field, "attempt " + attempt);
            if (attempt == 1 && !delay.isZero()) {
              throw new InvalidInputException(
                  field,
                  "attempt 1 happens at the fire time, so its delay must be 0s, was "
                      + DurationText.format(delay));
            }
          });
      if (copy.isEmpty() || copy.lastKey() < 2) {
        throw new InvalidInputException(
            field, "needs at least one attempt number >= 2 (e.g. 2:1m)");
      }
      return Collections.unmodifiableNavigableMap(copy);
    }

  }

  /**
   * Delays that grow by {@link #factor()} from {@link #base()} up to {@link #cap()}: attempt n
   * waits {@code min(cap, base * factor^(n - 2))}, saturating at the cap instead of overflowing.
   * A {@link #jitter()} {@code j > 0} draws each delay uniformly from {@code [d * (1 - j), d]} so
   * that notices which failed together (a receiver outage) do not all retry at the same instant;
   * the cap stays an upper bound. Text: {@code exponential(base=1s, factor=2, cap=1h)}, with
   * {@code , jitter=0.2} when there is jitter; factor defaults to 2 and jitter to 0.
   */
  record Exponential(Duration base, double factor, Duration cap, double jitter)
      implements RetrySchedule {
    static final String KEYWORD = "exponential";
    static final String EXAMPLE = "exponential(base=1s, factor=2, cap=1h)";

    /**
     * @throws InvalidInputException naming {@code retrySchedule.base}, {@code .factor}, {@code
     *     .cap} or {@code .jitter} unless {@code base > 0}, {@code factor >= 1} (finite), {@code cap
     *     >= base} and {@code 0 <= jitter <= 1}, with durations in whole milliseconds
     */
    public Exponential {
      check(base, factor, cap, jitter, "retrySchedule");
      if (jitter == 0) {
        jitter = 0.0; // -0.0 would not survive the text, which omits a zero jitter
      }
    }

    @Override
    public Duration delayBefore(int attempt, RandomGenerator random) {
      checkAttempt(attempt, random);
      long capMillis = cap.toMillis();
      double raw = base.toMillis() * Math.pow(factor, attempt - 2); // at worst +Infinity
      long millis = raw >= capMillis ? capMillis : Math.min(capMillis, Math.round(raw));
      long spread = (long) Math.floor(millis * jitter);
      if (spread > 0) {
        long offset =
            spread == Long.MAX_VALUE ? random.nextLong() >>> 1 : random.nextLong(spread + 1);
        millis -= offset;
      }
      return Duration.ofMillis(millis);
    }

    @Override
    public String text() {
      return "exponential(base="
          + DurationText.format(base)
          + ", factor="
          + number(factor)
          + ", cap="
          + DurationText.format(cap)
          + (jitter > 0 ? ", jitter=" + number(jitter) : "")
          + ")";
    }

    @Override
    public String toString() {
      return text();
    }

    static void check(
        Duration base, double factor, Duration cap, double jitter, String field) {
      Objects.requireNonNull(base, "base");
      Objects.requireNonNull(cap, "cap");
      requireWritable(base, field + ".base", "");
      if (base.isZero()) {
        throw new InvalidInputException(field + ".base", "must be > 0, was 0s");
      }
      if (!(factor >= 1)) {
        throw new InvalidInputException(field + ".factor", "must be >= 1, was " + number(factor));
      }
      if (Double.isInfinite(factor)) {
        throw new InvalidInputException(field + ".factor", "must be finite, was " + factor);
      }
      requireWritable(cap, field + ".cap", "");
      if (cap.compareTo(base) < 0) {
        throw new InvalidInputException(
            field + ".cap",
            "must be >= base ("
                + DurationText.format(base)
                + "), was "
                + DurationText.format(cap));
      }
      if (!(jitter >= 0 && jitter <= 1)) {
        throw new InvalidInputException(
            field + ".jitter", "must be between 0 and 1, was " + number(jitter));
      }
    }

    /** Shortest decimal that reads back to the same double, without exponent or trailing .0. */
    private static String number(double value) {
      if (Double.isNaN(value) || Double.isInfinite(value)) {
        return Double.toString(value);
      }
      return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
  }

  private static void checkAttempt(int attempt, RandomGenerator random) {
    if (attempt < 2) {
      throw new IllegalArgumentException(
          "attempt must be >= 2, was " + attempt + " (attempt 1 happens at the fire time)");
    }
    Objects.requireNonNull(random, "random");
  }

  /** Refuses a delay that no text could express; {@code label} prefixes the reason if not empty. */
  private static void requireWritable(Duration delay, String field, String label) {
    Objects.requireNonNull(delay, label.isEmpty() ? field : label);
    String reason = DurationText.unwritableReason(delay);
    if (reason == null && delay.compareTo(MAX_DELAY) > 0) {
      reason = "must be at most " + DurationText.format(MAX_DELAY) + ", was " + DurationText.format(delay);
    }
    if (reason != null) {
      throw new InvalidInputException(field, label.isEmpty() ? reason : label + " " + reason);
    }
  }

}
