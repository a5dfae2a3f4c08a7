package dev.herald.spring;

/**
 * What {@link NoticePublisher#publishAndDeliver} achieved (document 003's sync-first delivery).
 *
 * @param status DELIVERED inline, or DEFERRED to durable background delivery
 * @param handle the stored notice
 * @param reason for DEFERRED: why it was not delivered inline; null when DELIVERED
 */
public record SyncOutcome(Status status, NoticeHandle handle, String reason) {

  /** The two ways a sync-first call ends. */
  public enum Status {
    /** The receiver took it within the wait. */
    DELIVERED,
    /**
     * Stored; delivered in the background on the definition's schedule: the receiver's circuit was
     * open (failing or rate-limiting), the first attempt failed or took longer than the wait, or the
     * call ran inside a transaction (delivered after its commit).
     */
    DEFERRED
  }

  public boolean delivered() {
    return status == Status.DELIVERED;
  }
}
