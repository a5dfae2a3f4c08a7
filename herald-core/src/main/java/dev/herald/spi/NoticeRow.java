package dev.herald.spi;

import dev.herald.Notice;
import dev.herald.NoticeStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * A notice as the store holds it, with the fields that coordinate nodes.
 *
 * @param notice the public view
 * @param owner the node holding the lease; null when unowned (then status is not IN_FLIGHT)
 * @param leaseUntil when the owner's lease expires; {@link Instant#EPOCH} when unowned
 * @param version bumped by every change; each change names the version it expects
 * @param retryBase attempts made before the last manual resend; the attempt cap counts from here
 * @param shard the shard (0 to {@link Shards#COUNT} - 1) that decides which nodes may claim it
 */
public record NoticeRow(Notice notice, String owner, Instant leaseUntil, long version, int retryBase, int shard) {

  /** A row in shard 0. */
  public NoticeRow(Notice notice, String owner, Instant leaseUntil, long version, int retryBase) {
    this(notice, owner, leaseUntil, version, retryBase, 0);
  }

  public UUID id() {
    return notice.id();
  }

  public NoticeStatus status() {
    return notice.status();
  }

  /** Attempts counted against the definition's cap. */
  public int attemptsInBudget() {
    return notice.attempts() - retryBase;
  }

  /** A copy with the next version and the given notice. */
  public NoticeRow next(Notice changed, String newOwner, Instant newLeaseUntil) {
    return new NoticeRow(changed, newOwner, newLeaseUntil, version + 1, retryBase, shard);
  }

  public NoticeRow withRetryBase(int base) {
    return new NoticeRow(notice, owner, leaseUntil, version, base, shard);
  }
}
