package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.DeliveryResult;
import dev.herald.ReceiverState;
import dev.herald.SlowCalls;
import dev.herald.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Receiver circuits are kept only while they hold something worth remembering. */
class ReceiverCircuitsTest {
  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final ReceiverCircuits circuits = new ReceiverCircuits(clock, 3, Duration.ofSeconds(30));

  @Test
  void healthyReceiversLeaveNoEntryAndIdleFailuresAreForgottenButOpenAndHalfOpenCircuitsStay() {
    circuits.record("rate-limited", DeliveryResult.retryAfter(Duration.ofMinutes(1), "429"));
    circuits.record("probing", DeliveryResult.retryAfter(Duration.ofSeconds(1), "429"));
    for (int i = 0; i < 10_000; i++) {
      circuits.allowInline("one-off-" + i);
      circuits.record("one-off-" + i, DeliveryResult.delivered());
    }
    circuits.record("failed-once", DeliveryResult.retry("HTTP 500"));
    assertThat(circuits.size()).as("healthy receivers are not kept").isEqualTo(3);

    clock.advance(ReceiverCircuits.FORGET_AFTER);
    circuits.record("new-failure", DeliveryResult.retry("HTTP 500")); // a new entry sweeps the idle ones
    assertThat(circuits.size()).isEqualTo(3);
    assertThat(circuits.state("rate-limited")).isEqualTo(ReceiverState.HALF_OPEN);
    assertThat(circuits.state("probing")).isEqualTo(ReceiverState.HALF_OPEN);
    assertThat(circuits.state("failed-once")).isEqualTo(ReceiverState.CLOSED);

    circuits.record("rate-limited", DeliveryResult.retryAfter(Duration.ofHours(1), "429"));
    clock.advance(ReceiverCircuits.FORGET_AFTER);
    circuits.record("another-failure", DeliveryResult.retry("HTTP 500"));
    assertThat(circuits.state("rate-limited")).as("open: never dropped").isEqualTo(ReceiverState.OPEN);
    assertThat(circuits.state("probing")).as("half-open: never dropped").isEqualTo(ReceiverState.HALF_OPEN);
    assertThat(circuits.size()).isEqualTo(3);
  }

  @Test
  void aCircuitThatRecoversFullyIsDropped() {
    circuits.record("r", DeliveryResult.retryAfter(Duration.ofSeconds(30), "429"));
    clock.advance(Duration.ofSeconds(30));
    for (int i = 0; i < 4; i++) { // stride 16, 8, 4, 2, then all
      assertThat(circuits.state("r")).isEqualTo(ReceiverState.HALF_OPEN);
      circuits.record("r", DeliveryResult.delivered());
    }
    assertThat(circuits.state("r")).isEqualTo(ReceiverState.CLOSED);
    assertThat(circuits.size()).isZero();
  }

  @Test
  void consecutiveFailuresStillOpenIt() {
    circuits.record("r", DeliveryResult.retry("HTTP 500"));
    circuits.record("r", DeliveryResult.retry("HTTP 500"));
    assertThat(circuits.allowInline("r")).isTrue();
    circuits.record("r", DeliveryResult.retry("HTTP 500"));
    assertThat(circuits.allowInline("r")).isFalse();
    assertThat(circuits.openUntil("r")).isEqualTo(clock.instant().plusSeconds(30));
  }

  @Test
  void aRisingShareOfSlowAttemptsOpensTheCircuitEvenWhenTheySucceed() {
    ReceiverCircuits timed = new ReceiverCircuits(clock, 3, Duration.ofSeconds(30),
        new SlowCalls(Duration.ofSeconds(1), 0.5, 10, 4));
    Duration slow = Duration.ofMillis(1500);
    Duration quick = Duration.ofMillis(20);
    // one slow call among quick ones: 1 of 10 is under the rate, and once it leaves the window nothing is kept
    timed.record("steady", DeliveryResult.delivered(), slow);
    for (int i = 0; i < 9; i++) {
      timed.record("steady", DeliveryResult.delivered(), quick);
    }
    assertThat(timed.state("steady")).isEqualTo(ReceiverState.CLOSED);
    timed.record("steady", DeliveryResult.delivered(), quick);
    assertThat(timed.size()).as("the slow call left the window").isZero();

    // slowing down: the 4th attempt counted reaches the minimum, and 3 of 4 slow passes the rate
    timed.record("slowing", DeliveryResult.delivered(), slow);
    timed.record("slowing", DeliveryResult.delivered(), quick);
    timed.record("slowing", DeliveryResult.delivered(), slow);
    assertThat(timed.state("slowing")).as("3 calls: under the minimum").isEqualTo(ReceiverState.CLOSED);
    timed.record("slowing", DeliveryResult.delivered(), slow);
    assertThat(timed.state("slowing")).isEqualTo(ReceiverState.OPEN);
    assertThat(timed.allowInline("slowing")).isFalse();

    ReceiverCircuits off = new ReceiverCircuits(clock, 3, Duration.ofSeconds(30), SlowCalls.OFF);
    for (int i = 0; i < 20; i++) {
      off.record("slow", DeliveryResult.delivered(), Duration.ofMinutes(1));
    }
    assertThat(off.state("slow")).isEqualTo(ReceiverState.CLOSED);
    assertThat(off.size()).isZero();
  }
}
