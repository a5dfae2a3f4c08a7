package dev.herald.recurring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cron expressions: their slots in a time zone, across daylight-saving changes, and refusals naming the field. */
class CronExpressionTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static List<Instant> slots(String cron, ZoneId zone, String from, int n) {
    CronExpression c = CronExpression.parse(cron);
    List<Instant> out = new ArrayList<>();
    Instant t = Instant.parse(from);
    for (int i = 0; i < n; i++) {
      t = c.next(t, zone);
      out.add(t);
    }
    return out;
  }

  @Test
  void aTimeSkippedBySpringForwardFallsAfterTheGapOnceAndARepeatedTimeFiresOnce() {
    // 2027-03-28: 02:00 CET jumps to 03:00 CEST, so 02:30 does not exist that night
    assertThat(slots("30 2 * * *", BERLIN, "2027-03-26T12:00:00Z", 3)).containsExactly(
        Instant.parse("2027-03-27T01:30:00Z"), Instant.parse("2027-03-28T01:30:00Z"),
        Instant.parse("2027-03-29T00:30:00Z"));
    // 2026-10-25: 03:00 CEST goes back to 02:00 CET, so 02:30 happens twice: the first one is the slot
    assertThat(slots("30 2 * * *", BERLIN, "2026-10-24T12:00:00Z", 3)).containsExactly(
        Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"),
        Instant.parse("2026-10-27T01:30:00Z"));
    // hourly across the fall-back: the repeated 02:30 is not a second slot
    assertThat(slots("30 * * * *", BERLIN, "2026-10-24T23:00:00Z", 4)).containsExactly(
        Instant.parse("2026-10-24T23:30:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
        Instant.parse("2026-10-25T02:30:00Z"), Instant.parse("2026-10-25T03:30:00Z"));
  }

  @Test
  void fieldsListsRangesStepsNamesAndMacros() {
    assertThat(slots("*/20 9-10 * * MON-FRI", ZoneOffset.UTC, "2026-11-27T10:30:00Z", 3)).containsExactly(
        Instant.parse("2026-11-27T10:40:00Z"), Instant.parse("2026-11-30T09:00:00Z"),
        Instant.parse("2026-11-30T09:20:00Z")); // Friday, then Monday
    // both day fields restricted: either matches (the 1st, or a Sunday)
    assertThat(slots("0 0 1 * SUN", ZoneOffset.UTC, "2026-11-27T00:00:00Z", 3)).containsExactly(
        Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-12-01T00:00:00Z"),
        Instant.parse("2026-12-06T00:00:00Z"));
    assertThat(slots("@monthly", ZoneOffset.UTC, "2026-11-27T00:00:00Z", 1))
        .containsExactly(Instant.parse("2026-12-01T00:00:00Z"));
    assertThat(slots("0 12 * JAN,jul 7", ZoneOffset.UTC, "2026-11-27T00:00:00Z", 1))
        .containsExactly(Instant.parse("2027-01-03T12:00:00Z"));
  }

  @Test
  void aBadExpressionIsRefusedSayingWhichFieldAndWhy() {
    assertThatThrownBy(() -> CronExpression.parse("0 25 * * *")).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("cron").contains("hour").contains("25 is outside 0-23"));
    assertThatThrownBy(() -> CronExpression.parse("0 0 * *")).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("has 4 fields"));
    assertThatThrownBy(() -> CronExpression.parse("0 0 30 2 *")).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("matches no day"));
    assertThatThrownBy(() -> CronExpression.parse("0 0 * FOO *")).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("month").contains("'FOO'"));
    assertThatThrownBy(() -> CronExpression.parse("@often")).isInstanceOf(InvalidInputException.class);
  }
}
