package dev.herald.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testing.SettableClock;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Console login throttling: the delay grows with a user's failures, then logins are refused for the window. */
class LoginThrottleTest {
  private final SettableClock clock = SettableClock.startingNow();
  private final LoginThrottle throttle =
      new LoginThrottle(clock, Duration.ofMillis(250), Duration.ofSeconds(4), 10, Duration.ofMinutes(15));

  @Test
  void theDelayDoublesAfterAFewFailuresUpToItsCap() {
    assertThat(IntStream.rangeClosed(0, 9).mapToObj(throttle::delay).map(Duration::toMillis))
        .containsExactly(0L, 0L, 0L, 250L, 500L, 1000L, 2000L, 4000L, 4000L, 4000L);
  }

  @Test
  void afterTooManyFailuresEvenTheRightPasswordWaitsForTheWindow() {
    for (int i = 0; i < 9; i++) {
      throttle.failed("mallory-target", "10.0.0.1");
    }
    assertThat(throttle.check("mallory-target", "10.0.0.2").delay()).isEqualTo(Duration.ofSeconds(4));
    throttle.failed("mallory-target", "10.0.0.1");
    LoginThrottle.Decision locked = throttle.check("mallory-target", "10.0.0.3");
    assertThat(locked.refused()).as("per user, from any address").isTrue();
    assertThat(locked.retryAfter()).isEqualTo(Duration.ofMinutes(15));
    assertThat(throttle.check("someone-else", "10.0.0.4").refused()).isFalse();
    clock.advance(Duration.ofMinutes(15).plusSeconds(1));
    assertThat(throttle.check("mallory-target", "10.0.0.3").refused()).isFalse();
  }

  @Test
  void oneAddressGuessingManyUsersIsRefusedToo() {
    for (int i = 0; i < 30; i++) {
      throttle.failed("user-" + i, "10.9.9.9");
    }
    assertThat(throttle.check("a-new-user", "10.9.9.9").refused()).isTrue();
    assertThat(throttle.check("a-new-user", "10.1.1.1").refused()).isFalse();
  }

  @Test
  void aSuccessForgetsTheUsersFailures() {
    for (int i = 0; i < 5; i++) {
      throttle.failed("alice", "10.0.0.1");
    }
    throttle.succeeded("alice");
    assertThat(throttle.check("alice", "10.0.0.7").delay()).isZero();
  }
}
