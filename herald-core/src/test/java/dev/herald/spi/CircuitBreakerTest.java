package dev.herald.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.spi.CircuitBreaker.Admission;
import dev.herald.spi.CircuitBreaker.State;
import dev.herald.spi.CircuitBreaker.Tripped;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
  private static final long OPEN = 30_000;

  @Test
  void opensAtTheThresholdOfConsecutiveFailuresAndASuccessResetsTheCount() {
    CircuitBreaker c = new CircuitBreaker(3, CircuitBreaker.Probing.ONE_PROBE);
    assertThat(c.failure(0, false, OPEN)).isEqualTo(Tripped.NO);
    assertThat(c.failure(1, false, OPEN)).isEqualTo(Tripped.NO);
    c.success(2, false);
    assertThat(c.failure(3, false, OPEN)).isEqualTo(Tripped.NO);
    assertThat(c.failure(4, false, OPEN)).isEqualTo(Tripped.NO);
    assertThat(c.state(4)).isEqualTo(State.CLOSED);
    assertThat(c.failure(5, false, OPEN)).isEqualTo(Tripped.THRESHOLD);
    assertThat(c.state(5)).isEqualTo(State.OPEN);
    assertThat(c.admit(5 + OPEN - 1)).isEqualTo(Admission.HELD_OPEN);
    assertThat(c.state(5 + OPEN)).isEqualTo(State.HALF_OPEN);
  }

  @Test
  void oneProbeAtATimeItsSuccessClosesItsFailureReopens() {
    CircuitBreaker c = new CircuitBreaker(1, CircuitBreaker.Probing.ONE_PROBE);
    c.failure(0, false, OPEN);
    long t = OPEN;
    assertThat(c.admit(t)).isEqualTo(Admission.PROBE);
    assertThat(c.admit(t)).isEqualTo(Admission.HELD_HALF_OPEN);
    assertThat(c.failure(t, true, OPEN)).isEqualTo(Tripped.PROBE_FAILED);
    assertThat(c.openUntil()).isEqualTo(t + OPEN);
    t += OPEN;
    assertThat(c.admit(t)).isEqualTo(Admission.PROBE);
    c.success(t, false); // a late call admitted before the circuit opened proves nothing
    assertThat(c.state(t)).isEqualTo(State.HALF_OPEN);
    c.success(t, true);
    assertThat(c.state(t)).isEqualTo(State.CLOSED);
    assertThat(c.admit(t)).isEqualTo(Admission.GO);
  }

  @Test
  void aProbeThatTellsNothingLetsTheNextOneGo() {
    CircuitBreaker c = new CircuitBreaker(1, CircuitBreaker.Probing.ONE_PROBE);
    c.failure(0, false, OPEN);
    assertThat(c.admit(OPEN)).isEqualTo(Admission.PROBE);
    c.probeReturned();
    assertThat(c.admit(OPEN)).isEqualTo(Admission.PROBE);
  }

  @Test
  void rampUpLetsAGrowingShareThroughUntilClosedAndAnyFailureReopens() {
    CircuitBreaker c = new CircuitBreaker(1, CircuitBreaker.Probing.RAMP_UP);
    c.failure(0, false, OPEN);
    long t = OPEN;
    for (int stride : new int[] {16, 8, 4, 2}) {
      int allowed = 0;
      for (int i = 0; i < 32; i++) {
        allowed += c.admit(t) == Admission.GO ? 1 : 0;
      }
      assertThat(allowed).as("1 in %d", stride).isEqualTo(32 / stride);
      c.success(t, false);
    }
    assertThat(c.state(t)).isEqualTo(State.CLOSED);
    c.failure(t, false, OPEN);
    t += OPEN;
    c.success(t, false);
    assertThat(c.failure(t, false, OPEN)).isEqualTo(Tripped.PROBE_FAILED);
    assertThat(c.state(t)).isEqualTo(State.OPEN);
  }

  @Test
  void openNeverShortensARunningOpenPeriodAndResetClosesAtOnce() {
    CircuitBreaker c = new CircuitBreaker(5, CircuitBreaker.Probing.ONE_PROBE);
    c.open(0, 60_000);
    c.open(1, 1_000);
    assertThat(c.openUntil()).isEqualTo(60_000);
    assertThat(c.closed()).isFalse();
    assertThat(c.state(60_000)).isEqualTo(State.HALF_OPEN);
    assertThat(c.closed()).as("past its period it still owes a probe").isFalse();
    c.countFailure(false);
    assertThat(c.consecutiveFailures()).isEqualTo(1);
    c.reset();
    assertThat(c.state(1)).isEqualTo(State.CLOSED);
    assertThat(c.closed()).isTrue();
    assertThat(c.consecutiveFailures()).isZero();
  }
}
