package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private final Instant now = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void secondsAndHttpDates() {
    assertThat(ResponseJudge.retryAfter("120", now)).isEqualTo(Duration.ofSeconds(120));
    assertThat(ResponseJudge.retryAfter(" 0 ", now)).isEqualTo(Duration.ZERO);
    assertThat(ResponseJudge.retryAfter("Thu, 01 Jan 2026 00:01:30 GMT", now)).isEqualTo(Duration.ofSeconds(90));
    assertThat(ResponseJudge.retryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).as("in the past").isEqualTo(Duration.ZERO);
    assertThat(ResponseJudge.retryAfter("99999999999999999999", now)).isGreaterThan(Duration.ofDays(365));
  }

  @Test
  void anythingElseIsNotUnderstood() {
    assertThat(ResponseJudge.retryAfter("-5", now)).isNull();
    assertThat(ResponseJudge.retryAfter("1.5", now)).isNull();
    assertThat(ResponseJudge.retryAfter("soon", now)).isNull();
    assertThat(ResponseJudge.retryAfter("", now)).isNull();
  }
}
