package dev.herald;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Where a notice is in its life. The legal moves are fixed here and checked on every change; an
 * illegal move throws {@link IllegalTransitionException} instead of being ignored.
 *
 * <pre>
 *  PENDING ──claim──▶ IN_FLIGHT ──▶ SUCCEEDED | FAILED | DEAD | AWAITING_CONFIRM
 *  FAILED / AWAITING_CONFIRM ──due again──▶ IN_FLIGHT
 *  AWAITING_CONFIRM ──confirm──▶ SUCCEEDED;   DEAD (delivered, unconfirmed) ──late confirm──▶ SUCCEEDED
 *  any live status ──cancel──▶ CANCELLED;   any status but IN_FLIGHT ──resend──▶ PENDING
 * </pre>
 *
 * <p>{@code IN_FLIGHT} means "leased by a node": held in its timer or being delivered. A node's
 * lease may be taken over after it expires (IN_FLIGHT → IN_FLIGHT) and is released on shutdown
 * (→ PENDING or FAILED).
 */
public enum NoticeStatus {
  /** Waiting for its fire time; never attempted, or released before an attempt. */
  PENDING,
  /** Leased by a node that will deliver it at its due time. */
  IN_FLIGHT,
  /** The last attempt failed; a retry is scheduled. */
  FAILED,
  /** Delivered; waiting for the receiver's confirmation until the confirm timeout. */
  AWAITING_CONFIRM,
  /** Delivered (and confirmed where required). Finished. */
  SUCCEEDED,
  /** Final failure: attempts exhausted or the receiver refused for good. Finished. */
  DEAD,
  /** Cancelled by an operator or the caller before it succeeded. Finished. */
  CANCELLED;

  private static final Map<NoticeStatus, Set<NoticeStatus>> MOVES = new EnumMap<>(NoticeStatus.class);

  static {
    MOVES.put(PENDING, EnumSet.of(PENDING, IN_FLIGHT, CANCELLED));
    MOVES.put(IN_FLIGHT, EnumSet.of(IN_FLIGHT, SUCCEEDED, FAILED, DEAD, AWAITING_CONFIRM, CANCELLED, PENDING));
    // FAILED -> SUCCEEDED: a confirmation of the attempt whose answer was lost (it arrived during it)
    MOVES.put(FAILED, EnumSet.of(IN_FLIGHT, CANCELLED, PENDING, SUCCEEDED));
    MOVES.put(AWAITING_CONFIRM, EnumSet.of(IN_FLIGHT, SUCCEEDED, CANCELLED, PENDING));
    MOVES.put(SUCCEEDED, EnumSet.of(PENDING));
    MOVES.put(DEAD, EnumSet.of(PENDING, SUCCEEDED)); // a late confirmation of a delivered notice
    MOVES.put(CANCELLED, EnumSet.of(PENDING));
  }

  /** True for SUCCEEDED, DEAD and CANCELLED: the notice lives in history. */
  public boolean isFinished() {
    return this == SUCCEEDED || this == DEAD || this == CANCELLED;
  }

  /** Whether the status machine allows moving from this status to {@code next}. */
  public boolean canMoveTo(NoticeStatus next) {
    return MOVES.get(this).contains(next);
  }

  /** The statuses reachable from this one. */
  public Set<NoticeStatus> nextStatuses() {
    return EnumSet.copyOf(MOVES.get(this));
  }

  /**
   * Checks a move.
   *
   * @throws IllegalTransitionException if the move is not allowed
   */
  public void checkMoveTo(NoticeStatus next, UUID noticeId) {
    if (!canMoveTo(next)) {
      throw new IllegalTransitionException(noticeId, this, next, null);
    }
  }
}
