package dev.herald.testing;

import dev.herald.Herald;
import java.time.Duration;

/**
 * Drives a Herald that was built but not started, deterministically: move the clock, run what is
 * due, assert. Every call returns only after the outcomes are recorded.
 *
 * <pre>{@code
 * SettableClock clock = SettableClock.startingNow();
 * Herald herald = Herald.builder().clock(clock)...build();   // not started
 * ManualRunner runner = new ManualRunner(herald, clock);
 * herald.enqueue("order-paid", "{}");
 * runner.runDue();                       // first attempt
 * runner.advanceAndRun(Duration.ofSeconds(5));   // the retry
 * }</pre>
 */
public final class ManualRunner {
  private final Herald herald;
  private final SettableClock clock;

  public ManualRunner(Herald herald, SettableClock clock) {
    if (herald.clock() != clock) {
      throw new IllegalArgumentException("the Herald must be built with this clock");
    }
    this.herald = herald;
    this.clock = clock;
  }

  /** One attempt of everything due now; returns how many attempts ran. */
  public int runDue() {
    return herald.runDue();
  }

  /** Moves the clock forward, then runs what is due. */
  public int advanceAndRun(Duration by) {
    clock.advance(by);
    return herald.runDue();
  }

  public SettableClock clock() {
    return clock;
  }
}
