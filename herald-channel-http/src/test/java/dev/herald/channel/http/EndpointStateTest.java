package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.channel.http.EndpointState.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The circuit breaker and concurrency limit of one endpoint, on a hand-moved clock (millis). */
class EndpointStateTest {
  private final Endpoint endpoint = new Endpoint("https", "hooks.example", 443);
  private long now = 1_000_000;

  private EndpointState state(int threshold, double rate, int minimumCalls) {
    return new EndpointState(endpoint, new CircuitSettings(threshold, rate, minimumCalls, Duration.ofMinutes(1),
        Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofDays(5), Duration.ofMinutes(1)));
  }

  private static void fail(EndpointState s, long now) {
    s.record(Verdict.FAILED, false, now, null, "HTTP 500");
  }

  @Test
  void opensAfterConsecutiveFailuresThenOneProbeAtATimeAndASuccessCloses() {
    EndpointState s = state(3, 1.0, 1_000);
    fail(s, now);
    fail(s, now);
    s.record(Verdict.RESPONDED, false, now, null, null); // resets the run
    fail(s, now);
    fail(s, now);
    assertThat(s.admit(now).allowed()).isTrue();
    fail(s, now);

    EndpointState.Admission open = s.admit(now + 10_000);
    assertThat(open.allowed()).isFalse();
    assertThat(open.deferFor()).isEqualTo(Duration.ofSeconds(20));
    assertThat(open.reason()).startsWith("circuit open for https://hooks.example:443")
        .contains("3 consecutive failures, last: HTTP 500");
    assertThat(s.status(now).circuit()).isEqualTo(EndpointStatus.Circuit.OPEN);
    assertThat(s.status(now).consecutiveFailures()).isEqualTo(3);

    long later = now + 30_000;
    assertThat(s.admit(later)).isEqualTo(EndpointState.Admission.PROBE);
    EndpointState.Admission waiting = s.admit(later);
    assertThat(waiting.allowed()).isFalse();
    assertThat(waiting.deferFor()).isEqualTo(Duration.ofSeconds(1));
    assertThat(waiting.reason()).contains("half-open").contains("waiting for the probe");

    s.record(Verdict.FAILED, true, later, null, "timed out");
    assertThat(s.admit(later + 29_999).allowed()).as("a failed probe opens it again").isFalse();
    assertThat(s.admit(later + 30_000)).isEqualTo(EndpointState.Admission.PROBE);
    s.record(Verdict.NEUTRAL, true, later + 30_000, null, null);
    assertThat(s.admit(later + 30_000)).as("a neutral probe leaves it half-open").isEqualTo(EndpointState.Admission.PROBE);
    s.record(Verdict.RESPONDED, true, later + 30_000, null, null);

    assertThat(s.status(later + 30_000).circuit()).isEqualTo(EndpointStatus.Circuit.CLOSED);
    assertThat(s.admit(later + 30_000)).isEqualTo(EndpointState.Admission.GO);
    assertThat(s.admit(later + 30_000)).isEqualTo(EndpointState.Admission.GO);
  }

  @Test
  void opensOnAFailureRateWithinTheWindow() {
    EndpointState s = state(100, 0.5, 10);
    for (int i = 0; i < 4; i++) {
      fail(s, now);
      s.record(Verdict.RESPONDED, false, now, null, null);
    }
    s.record(Verdict.RESPONDED, false, now, null, null);
    assertThat(s.admit(now).allowed()).isTrue();
    fail(s, now); // 5 of 10
    assertThat(s.admit(now).allowed()).isFalse();
    assertThat(s.admit(now).reason()).contains("5 of 10 calls failed");
  }

  @Test
  void theFailureRateWindowStartsOver() {
    EndpointState s = state(100, 0.5, 10);
    for (int i = 0; i < 4; i++) {
      fail(s, now);
      s.record(Verdict.RESPONDED, false, now, null, null);
    }
    s.record(Verdict.RESPONDED, false, now, null, null);
    fail(s, now + 61_000); // a new window: 1 call
    assertThat(s.admit(now + 61_000).allowed()).isTrue();
  }

  @Test
  void aRequestedPauseOpensAtOnceForThatLong() {
    EndpointState s = state(5, 1.0, 1_000);
    s.record(Verdict.FAILED, false, now, Duration.ofMinutes(2), "HTTP 429 Too Many Requests");
    EndpointState.Admission a = s.admit(now);
    assertThat(a.allowed()).isFalse();
    assertThat(a.deferFor()).isEqualTo(Duration.ofMinutes(2));
    assertThat(a.reason()).contains("asked to wait: HTTP 429");
  }

  @Test
  void onlyAQuietStateWithoutRecentFailuresIsEvictable() {
    EndpointState s = state(1, 1.0, 1_000);
    assertThat(s.tryAcquire(1, now)).isTrue();
    assertThat(s.evictable(now, now)).as("a request in flight").isFalse();
    s.record(Verdict.FAILED, false, now, null, "HTTP 500"); // opens: threshold 1
    s.release();
    assertThat(s.evictable(now + 3_600_000, now + 3_600_000)).as("open, even past its open period").isFalse();

    EndpointState t = state(5, 1.0, 1_000);
    assertThat(t.tryAcquire(1, now)).isTrue();
    t.record(Verdict.FAILED, false, now, null, "HTTP 500");
    t.release();
    assertThat(t.evictable(now, now - 1)).as("failed since").isFalse();
    assertThat(t.evictable(now - 1, now)).as("used since").isFalse();
    assertThat(t.evictable(now, now)).isTrue();
  }

  @Test
  void theConcurrencyLimitIsAHardCount() {
    EndpointState s = state(5, 1.0, 1_000);
    assertThat(s.tryAcquire(2, now)).isTrue();
    assertThat(s.tryAcquire(2, now)).isTrue();
    assertThat(s.tryAcquire(2, now)).isFalse();
    assertThat(s.tryAcquire(3, now)).as("a definition with a higher limit").isTrue();
    s.release();
    s.release();
    assertThat(s.inFlight()).isEqualTo(1);
    assertThat(s.tryAcquire(2, now)).isTrue();
  }
}
