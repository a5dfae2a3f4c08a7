package dev.herald.schedule;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofDays;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryScheduleTest {
  private static final RandomGenerator RANDOM = new Random(42);

  private static List<Duration> delays(RetrySchedule schedule, int fromAttempt, int toAttempt) {
    return IntStream.rangeClosed(fromAttempt, toAttempt)
        .mapToObj(attempt -> schedule.delayBefore(attempt, RANDOM))
        .toList();
  }

  private static void assertRefused(String text, String field, String reason) {
    assertThatThrownBy(() -> RetrySchedule.parse(text))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.reason()).contains(reason);
            });
  }

  // --- fixed ---

  @Test
  void fixedWaitsTheSameBeforeEveryRetry() {
    RetrySchedule schedule = RetrySchedule.parse(" 5m ");
    assertThat(schedule).isEqualTo(RetrySchedule.fixed(ofMinutes(5)));
    assertThat(schedule).isInstanceOf(RetrySchedule.Fixed.class);
    assertThat(delays(schedule, 2, 10)).containsOnly(ofMinutes(5)).hasSize(9);
    assertThat(schedule.text()).isEqualTo("5m");
    assertThat(schedule).hasToString("5m");
  }

  @Test
  void fixedMayRetryAtOnce() {
    assertThat(RetrySchedule.parse("0").delayBefore(2, RANDOM)).isEqualTo(ZERO);
    assertThat(RetrySchedule.parse("0").text()).isEqualTo("0s");
  }

  // --- list ---

  @Test
  void listWaitsEachEntryInTurnThenRepeatsTheLast() {
    RetrySchedule schedule = RetrySchedule.parse("5s,5m , 1h,\t1d");
    assertThat(schedule)
        .isEqualTo(RetrySchedule.list(ofSeconds(5), ofMinutes(5), ofHours(1), ofDays(1)));
    assertThat(delays(schedule, 2, 10))
        .containsExactly(
            ofSeconds(5), ofMinutes(5), ofHours(1), ofDays(1), ofDays(1), ofDays(1), ofDays(1),
            ofDays(1), ofDays(1));
    assertThat(schedule.text()).isEqualTo("5s, 5m, 1h, 1d");
  }

  @Test
  void listIsACopy() {
    List<Duration> source = new ArrayList<>(List.of(ofSeconds(1), ofSeconds(2)));
    RetrySchedule.DelayList schedule = RetrySchedule.list(source);
    source.set(0, ofHours(9));
    assertThat(schedule.delays()).containsExactly(ofSeconds(1), ofSeconds(2));
    assertThatThrownBy(() -> schedule.delays().add(ZERO))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  // --- per attempt ---

  @Test
  void perAttemptFollowsTheRuleOfDocument001() {
    RetrySchedule schedule = RetrySchedule.parse("1:0s, 2:1m, 3:2m, 4:10m, 5:1h");
    assertThat(delays(schedule, 2, 10))
        .containsExactly(
            ofMinutes(1), ofMinutes(2), ofMinutes(10), ofHours(1), ofHours(1), ofHours(1),
            ofHours(1), ofHours(1), ofHours(1));
    assertThat(schedule.text()).isEqualTo("1:0s, 2:1m, 3:2m, 4:10m, 5:1h");
  }

  @Test
  void perAttemptFillsGapsFromBelow() {
    RetrySchedule schedule = RetrySchedule.parse("3:1m,6 : 1h");
    assertThat(delays(schedule, 2, 10))
        .containsExactly(
            ZERO, ofMinutes(1), ofMinutes(1), ofMinutes(1), ofHours(1), ofHours(1), ofHours(1),
            ofHours(1), ofHours(1));
    assertThat(schedule.text()).isEqualTo("3:1m, 6:1h");
    assertThat(schedule)
        .isEqualTo(RetrySchedule.perAttempt(Map.of(3, ofMinutes(1), 6, ofHours(1))));
  }

  @Test
  void perAttemptSortsItsKeysWhateverTheGivenOrder() {
    var reversed = new TreeMap<Integer, Duration>(Collections.reverseOrder());
    reversed.put(2, ofSeconds(1));
    reversed.put(3, ofSeconds(2));
    RetrySchedule.PerAttempt schedule = new RetrySchedule.PerAttempt(reversed);
    assertThat(schedule.text()).isEqualTo("2:1s, 3:2s");
    assertThat(schedule.delayBefore(4, RANDOM)).isEqualTo(ofSeconds(2));
    assertThatThrownBy(() -> schedule.delays().put(9, ZERO))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  // --- exponential ---

  @Test
  void exponentialGrowsByTheFactorUpToTheCap() {
    RetrySchedule schedule = RetrySchedule.parse("exponential(base=1s, factor=2, cap=1m)");
    assertThat(delays(schedule, 2, 10))
        .containsExactly(
            ofSeconds(1), ofSeconds(2), ofSeconds(4), ofSeconds(8), ofSeconds(16), ofSeconds(32),
            ofMinutes(1), ofMinutes(1), ofMinutes(1));
  }

  @Test
  void exponentialArgumentsAreNamedInAnyOrderWithDefaults() {
    RetrySchedule schedule =
        RetrySchedule.parse("  exponential ( cap = 1h ,base=  500ms )  ");
    assertThat(schedule)
        .isEqualTo(RetrySchedule.exponential(ofMillis(500), 2, ofHours(1), 0));
    assertThat(schedule.text()).isEqualTo("exponential(base=500ms, factor=2, cap=1h)");
  }

  @Test
  void exponentialWithAFractionalFactorRoundsToMilliseconds() {
    RetrySchedule schedule = RetrySchedule.parse("exponential(base=1s, factor=1.5, cap=10s)");
    assertThat(delays(schedule, 2, 8))
        .containsExactly(
            ofMillis(1000), ofMillis(1500), ofMillis(2250), ofMillis(3375), ofMillis(5063),
            ofMillis(7594), ofSeconds(10));
    assertThat(schedule.text()).isEqualTo("exponential(base=1s, factor=1.5, cap=10s)");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "exponential(base=1s, factor=2, cap=1h)",
        "exponential(base=1ms, factor=1000, cap=3650d)",
        "exponential(base=1d, factor=10, cap=3650d)",
      })
  void exponentialSaturatesAtTheCapInsteadOfOverflowing(String text) {
    RetrySchedule.Exponential schedule = (RetrySchedule.Exponential) RetrySchedule.parse(text);
    assertThat(schedule.delayBefore(1000, RANDOM)).isEqualTo(schedule.cap());
    assertThat(schedule.delayBefore(Integer.MAX_VALUE, RANDOM)).isEqualTo(schedule.cap());
  }

  @Test
  void factorOneIsAFixedDelayWithACap() {
    RetrySchedule schedule = RetrySchedule.exponential(ofSeconds(3), 1, ofSeconds(3), 0);
    assertThat(delays(schedule, 2, 10)).containsOnly(ofSeconds(3));
    assertThat(schedule.text()).isEqualTo("exponential(base=3s, factor=1, cap=3s)");
  }

  @Test
  void jitterStaysWithinBoundsAndVaries() {
    RetrySchedule schedule =
        RetrySchedule.parse("exponential(base=1s, factor=2, cap=1m, jitter=0.2)");
    Random random = new Random(42);
    for (int attempt = 2; attempt <= 12; attempt++) {
      long full = Math.min(60_000, 1000L << (attempt - 2));
      Set<Duration> seen = new HashSet<>();
      for (int draw = 0; draw < 2_000; draw++) {
        Duration delay = schedule.delayBefore(attempt, random);
        assertThat(delay.toMillis()).isBetween(Math.round(full * 0.8), full);
        seen.add(delay);
      }
      assertThat(seen).as("distinct delays before attempt %d", attempt).hasSizeGreaterThan(50);
    }
  }

  @Test
  void fullJitterCoversZeroToTheDelay() {
    RetrySchedule schedule = RetrySchedule.exponential(ofMillis(10), 2, ofMillis(10), 1);
    Random random = new Random(42);
    Set<Long> seen = new HashSet<>();
    for (int draw = 0; draw < 1_000; draw++) {
      seen.add(schedule.delayBefore(5, random).toMillis());
    }
    assertThat(seen).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
  }

  @Test
  void jitterIsReproducibleWithTheSameSeed() {
    RetrySchedule schedule =
        RetrySchedule.parse("exponential(base=1s, cap=1h, jitter=0.5, factor=3)");
    List<Duration> first = new ArrayList<>();
    List<Duration> second = new ArrayList<>();
    Random a = new Random(42);
    Random b = new Random(42);
    for (int attempt = 2; attempt < 20; attempt++) {
      first.add(schedule.delayBefore(attempt, a));
      second.add(schedule.delayBefore(attempt, b));
    }
    assertThat(first).isEqualTo(second);
  }

  // --- round trip ---

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0s",
        "5m",
        "1500ms",
        "5s, 5m, 1h, 1d",
        "0s, 0s",
        "1:0s, 2:1m, 3:2m, 4:10m, 5:1h",
        "2:90s",
        "exponential(base=1s, factor=2, cap=1h)",
        "exponential(base=250ms, factor=1.5, cap=1d, jitter=0.2)",
        "exponential(base=1s, factor=2, cap=1h, jitter=1)",
        "exponential(base=1s, factor=1.0000001, cap=1s, jitter=0.0000001)",
        "exponential(base=1s, factor=100000000000000000000, cap=1h)",
      })
  void canonicalTextReadsBackToAnEqualSchedule(String text) {
    RetrySchedule schedule = RetrySchedule.parse(text);
    assertThat(schedule.text()).isEqualTo(text);
    assertThat(schedule.toString()).isEqualTo(text);
    RetrySchedule reparsed = RetrySchedule.parse(schedule.text());
    assertThat(reparsed).isEqualTo(schedule).hasSameHashCodeAs(schedule);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        " 300s |5m",
        "60000ms,  120s|1m, 2m",
        "2:60s,3:3600000ms|2:1m, 3:1h",
        "EXPONENTIAL(factor=2.0, base=60s, cap=120m, jitter=0)|exponential(base=1m, factor=2, cap=2h)",
        "exponential(base=1s, cap=1h, jitter=0.50)|exponential(base=1s, factor=2, cap=1h, jitter=0.5)",
      })
  void textIsNormalised(String text, String canonical) {
    assertThat(RetrySchedule.parse(text).text()).isEqualTo(canonical);
  }

  @Test
  void negativeZeroJitterIsZero() {
    RetrySchedule schedule = RetrySchedule.exponential(ofSeconds(1), 2, ofHours(1), -0.0);
    assertThat(RetrySchedule.parse(schedule.text())).isEqualTo(schedule);
  }

  @Test
  void factoriesBuildTheSameValuesAsParsing() {
    assertThat(RetrySchedule.list(List.of(ofSeconds(1), ofSeconds(2))))
        .isEqualTo(RetrySchedule.parse("1s, 2s"));
    assertThat(RetrySchedule.perAttempt(Map.of(1, ZERO, 2, ofMinutes(1))))
        .isEqualTo(RetrySchedule.parse("1:0s, 2:1m"));
    assertThat(RetrySchedule.exponential(ofSeconds(1), 2.5, ofHours(1), 0.25))
        .isEqualTo(RetrySchedule.parse("exponential(base=1s, factor=2.5, cap=1h, jitter=0.25)"));
  }

  // --- attempts ---

  @ParameterizedTest
  @ValueSource(ints = {1, 0, -1, Integer.MIN_VALUE})
  void thereIsNoDelayBeforeTheFirstAttempt(int attempt) {
    for (String text : List.of("5m", "1s, 2s", "2:1m", "exponential(base=1s, cap=1m)")) {
      assertThatThrownBy(() -> RetrySchedule.parse(text).delayBefore(attempt, RANDOM))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("attempt must be >= 2, was " + attempt);
    }
  }

  // --- errors ---

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"  ", "\n"})
  void refusesBlank(String text) {
    assertRefused(text, "retrySchedule", "must not be blank");
  }

  @Test
  void reportsTheGivenField() {
    assertThatThrownBy(() -> RetrySchedule.parse("5x", "definitions[2].retrySchedule"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("definitions[2].retrySchedule");
              assertThat(e.reason()).startsWith("'5x' is not a duration");
            });
    assertThatThrownBy(() -> RetrySchedule.parse("exponential(base=1s, cap=1h, factor=0)", "d.rs"))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("d.rs.factor"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // fixed
        "5x|retrySchedule|'5x' is not a duration: expected a whole number followed by ms, s, m, h or d (e.g. 5s)",
        "-5s|retrySchedule|'-5s' is not a duration",
        "99999999999999999999d|retrySchedule|'99999999999999999999d' is too large",
        // list
        "5s, 5m, 1x|retrySchedule|entry 3 '1x' is not a duration: expected a whole number",
        "5s,,1h|retrySchedule|entry 2 is empty",
        "5s,|retrySchedule|entry 2 is empty",
        ",5s|retrySchedule|entry 1 is empty",
        // per attempt
        "1:0s, 2:1m, 3:1x|retrySchedule|attempt 3 '1x' is not a duration",
        "2:1m, 3|retrySchedule|entry 2 '3' has no ':'",
        "2:1m, , 3:1h|retrySchedule|entry 2 is empty",
        "x:1m|retrySchedule|entry 1 'x' is not an attempt number",
        ":1m|retrySchedule|entry 1 '' is not an attempt number",
        "-2:1m|retrySchedule|entry 1 '-2' is not an attempt number",
        "99999999999:1m|retrySchedule|entry 1 '99999999999' is not an attempt number",
        "0:0s, 2:1m|retrySchedule|attempt numbers start at 1, was 0",
        "2:1m, 3:2m, 3:5m|retrySchedule|attempt 3 appears twice",
        "2:1m, 4:2m, 3:5m|retrySchedule|attempt 3 is out of order: it follows attempt 4",
        "1:5s, 2:1m|retrySchedule|attempt 1 happens at the fire time, so its delay must be 0s, was 5s",
        "1:0s|retrySchedule|needs at least one attempt number >= 2",
        "2:|retrySchedule|attempt 2 must not be blank",
        // exponential
        "exponential|retrySchedule|'exponential' is not a schedule: expected 'exponential(base=1s",
        "exponentially(base=1s, cap=1h)|retrySchedule|is not a schedule",
        "exponential(base=1s, cap=1h|retrySchedule|does not end with ')'",
        "exponential()|retrySchedule.base|is required",
        "exponential(cap=1h)|retrySchedule.base|is required",
        "exponential(base=1s)|retrySchedule.cap|is required",
        "exponential(base=1s, cap=1h, max=3)|retrySchedule|unknown argument 'max': expected base, factor, cap or jitter",
        "exponential(base=1s, cap=1h, Base=3s)|retrySchedule|unknown argument 'Base'",
        "exponential(base=1s, cap=1h, base=2s)|retrySchedule.base|is given twice",
        "exponential(base=1s, cap=1h,)|retrySchedule|argument 3 is empty",
        "exponential(base=1s, cap)|retrySchedule|argument 2 'cap' has no '='",
        "exponential(base=1x, cap=1h)|retrySchedule.base|'1x' is not a duration",
        "exponential(base=, cap=1h)|retrySchedule.base|must not be blank",
        "exponential(base=0s, cap=1h)|retrySchedule.base|must be > 0, was 0s",
        "exponential(base=1s, cap=1x)|retrySchedule.cap|'1x' is not a duration",
        "exponential(base=1m, cap=1s)|retrySchedule.cap|must be >= base (1m), was 1s",
        "exponential(base=1s, factor=0.5, cap=1h)|retrySchedule.factor|must be >= 1, was 0.5",
        "exponential(base=1s, factor=-2, cap=1h)|retrySchedule.factor|must be >= 1, was -2",
        "exponential(base=1s, factor=NaN, cap=1h)|retrySchedule.factor|'NaN' is not a number",
        "exponential(base=1s, factor=1e3, cap=1h)|retrySchedule.factor|'1e3' is not a number",
        "exponential(base=1s, factor=2., cap=1h)|retrySchedule.factor|'2.' is not a number",
        "exponential(base=1s, factor=.5, cap=1h)|retrySchedule.factor|'.5' is not a number",
        "exponential(base=1s, factor=, cap=1h)|retrySchedule.factor|'' is not a number",
        "exponential(base=1s, cap=1h, jitter=1.5)|retrySchedule.jitter|must be between 0 and 1, was 1.5",
        "exponential(base=1s, cap=1h, jitter=-0.1)|retrySchedule.jitter|must be between 0 and 1, was -0.1",
        "exponential(base=1s, cap=1h, jitter=x)|retrySchedule.jitter|'x' is not a number",
      })
  void refusesWithFieldAndReason(String text, String field, String reason) {
    assertRefused(text, field, reason);
  }

  @Test
  void refusesAnInfiniteFactor() {
    String huge = "1" + "0".repeat(400);
    assertRefused(
        "exponential(base=1s, factor=" + huge + ", cap=1h)",
        "retrySchedule.factor",
        "must be finite, was Infinity");
  }

  @Test
  void factoriesRefuseWhatTheTextCouldNotSay() {
    assertThatThrownBy(() -> RetrySchedule.fixed(ofSeconds(-1)))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("retrySchedule");
              assertThat(e.reason()).isEqualTo("delay must not be negative, was PT-1S");
            });
    assertThatThrownBy(() -> RetrySchedule.list(ofSeconds(1), Duration.ofNanos(1)))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.reason()).startsWith("entry 2 must be a whole number of milliseconds"));
    assertThatThrownBy(() -> RetrySchedule.list(ofSeconds(1)))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.reason()).startsWith("a list needs at least 2 delays, was 1"));
    assertThatThrownBy(() -> RetrySchedule.perAttempt(Map.of()))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.reason()).startsWith("needs at least one attempt number >= 2"));
    assertThatThrownBy(() -> RetrySchedule.perAttempt(Map.of(2, ofSeconds(-1))))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.reason()).startsWith("attempt 2 must not be negative"));
    assertThatThrownBy(
            () -> RetrySchedule.exponential(ofSeconds(1), Double.NaN, ofHours(1), 0))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("retrySchedule.factor");
              assertThat(e.reason()).isEqualTo("must be >= 1, was NaN");
            });
    assertThatThrownBy(
            () -> RetrySchedule.exponential(ofSeconds(1), 2, ofHours(1), Double.NaN))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("retrySchedule.jitter"));
    assertThatThrownBy(() -> RetrySchedule.fixed(null)).isInstanceOf(NullPointerException.class);
  }
}
