package dev.herald;

import java.time.Duration;
import java.util.Objects;

/**
 * What one delivery attempt achieved, as a handler or channel reports it.
 *
 * @param outcome what happened
 * @param detail a short summary for the attempt log: the error, or the receiver's response
 * @param retryAfter the least time to wait before the next attempt (e.g. HTTP Retry-After); null if
 *     none. A longer wait than {@link #MAX_RETRY_AFTER} is read as that: no receiver's answer can
 *     push a notice beyond what time arithmetic, operators and alerts handle
 * @param description a new description for the notice, written with the outcome; null keeps it
 */
public record DeliveryResult(Outcome outcome, String detail, Duration retryAfter, String description) {
  /** The longest wait a result can ask for. */
  public static final Duration MAX_RETRY_AFTER = Duration.ofDays(1);

  /** The four ways an attempt can end. */
  public enum Outcome {
    /** The receiver took it. */
    DELIVERED,
    /** Failed this time; retry on the definition's schedule (until the attempt cap). */
    RETRY,
    /** Failed for good; no more attempts (the notice goes DEAD). */
    FAIL,
    /** Delivered, but it only counts once the receiver confirms. */
    AWAIT_CONFIRM,
    /**
     * Not attempted: the channel chose not to call the receiver now (its circuit is open, or it is
     * at its concurrency limit). The notice is rescheduled after {@code retryAfter}; no attempt is
     * counted or logged.
     */
    DEFER
  }

  public DeliveryResult {
    Objects.requireNonNull(outcome, "outcome");
    if (outcome == Outcome.DEFER && retryAfter == null) {
      throw new IllegalArgumentException("DEFER needs retryAfter");
    }
    if (retryAfter != null && retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative");
    }
    if (retryAfter != null && retryAfter.compareTo(MAX_RETRY_AFTER) > 0) {
      retryAfter = MAX_RETRY_AFTER;
    }
  }

  public static DeliveryResult delivered() {
    return new DeliveryResult(Outcome.DELIVERED, null, null, null);
  }

  public static DeliveryResult delivered(String detail) {
    return new DeliveryResult(Outcome.DELIVERED, detail, null, null);
  }

  public static DeliveryResult retry(String reason) {
    return new DeliveryResult(Outcome.RETRY, reason, null, null);
  }

  /** Retry, but not sooner than {@code atLeast} from now. */
  public static DeliveryResult retryAfter(Duration atLeast, String reason) {
    return new DeliveryResult(Outcome.RETRY, reason, atLeast, null);
  }

  /** Not attempted now: reschedule after {@code delay} without counting an attempt. */
  public static DeliveryResult defer(Duration delay, String reason) {
    return new DeliveryResult(Outcome.DEFER, reason, delay, null);
  }

  public static DeliveryResult fail(String reason) {
    return new DeliveryResult(Outcome.FAIL, reason, null, null);
  }

  public static DeliveryResult awaitConfirm() {
    return new DeliveryResult(Outcome.AWAIT_CONFIRM, null, null, null);
  }

  /** The same result, also setting the notice's description. */
  public DeliveryResult withDescription(String newDescription) {
    return new DeliveryResult(outcome, detail, retryAfter, newDescription);
  }

  /** True if the receiver took it (DELIVERED or AWAIT_CONFIRM). */
  public boolean isDelivered() {
    return outcome == Outcome.DELIVERED || outcome == Outcome.AWAIT_CONFIRM;
  }
}
