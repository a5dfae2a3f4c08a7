package dev.herald;

/** Whether {@link Herald#deliverNow} delivers inline to a receiver (document 003). */
public enum ReceiverState {
  /** Healthy: deliver inline. */
  CLOSED,
  /** Failing or rate-limiting: defer every call to the background. */
  OPEN,
  /** Recovering: let a growing share of calls through inline, as probes. */
  HALF_OPEN
}
