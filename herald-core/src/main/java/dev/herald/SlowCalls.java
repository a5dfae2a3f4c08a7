package dev.herald;

import java.time.Duration;

/**
 * When rising response times open a receiver's sync-first circuit (document 003, as resilience4j's
 * slow-call rate): of a receiver's last {@code window} attempts, once at least {@code minimumCalls}
 * were seen, a share of {@code rate} or more that took {@code threshold} or longer opens it, whether
 * they succeeded or not.
 *
 * @param threshold an attempt this long or longer is slow
 * @param rate the share of slow attempts (above 0, at most 1) that opens the circuit
 * @param window how many of the latest attempts are counted
 * @param minimumCalls attempts needed in the window before the rate counts
 */
public record SlowCalls(Duration threshold, double rate, int window, int minimumCalls) {
  /** 10 s or longer, half of the last 20 attempts (at least 10). */
  public static final SlowCalls DEFAULT = new SlowCalls(Duration.ofSeconds(10), 0.5, 20, 10);
  /** Response times never open a circuit. */
  public static final SlowCalls OFF = new SlowCalls(Duration.ZERO, 1, 1, 1);

  /** @throws InvalidInputException naming {@code circuitSlowCalls.<component>} */
  public SlowCalls {
    EngineSetting.CIRCUIT_SLOW_CALL_DURATION.check(threshold);
    EngineSetting.CIRCUIT_SLOW_CALL_RATE.check(rate);
    if (window < 1 || window > 1000) {
      throw new InvalidInputException("circuitSlowCalls.window", "must be from 1 to 1000, was " + window);
    }
    if (minimumCalls < 1 || minimumCalls > window) {
      throw new InvalidInputException("circuitSlowCalls.minimumCalls", "must be from 1 to the window (" + window
          + "), was " + minimumCalls);
    }
  }

  /** Whether response times count at all (a zero threshold turns them off). */
  public boolean enabled() {
    return !threshold.isZero();
  }

  public boolean isSlow(Duration took) {
    return enabled() && took != null && took.compareTo(threshold) >= 0;
  }
}
