package dev.herald;

/**
 * The answer of {@link Herald#deliverNow}: delivered inline, or stored and left to the engine.
 *
 * @param status what happened
 * @param notice the notice as last seen (after its first attempt when DELIVERED)
 * @param reason for DEFERRED: why it was not delivered inline
 */
public record SyncDelivery(Status status, Notice notice, String reason) {
  /** Inline outcomes. */
  public enum Status {
    /** The receiver took it within the wait. */
    DELIVERED,
    /** Stored durably; the engine delivers it asynchronously, retrying on the definition's schedule. */
    DEFERRED
  }

  public boolean delivered() {
    return status == Status.DELIVERED;
  }
}
