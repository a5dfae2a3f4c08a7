package dev.herald;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * One definition's notices counted as of an instant ({@link NoticeReports#countByDefinition}).
 *
 * <p><b>Backlog</b>, the one definition every part of Herald uses (gauges, health, console): live
 * (unfinished) notices whose fire time has passed. It holds what waits for a first attempt, for a
 * retry, or for a receiver's confirmation; a notice leaves it when it finishes (SUCCEEDED, DEAD,
 * CANCELLED). Its <b>age</b> is how long ago the oldest of them was due to fire.
 *
 * @param due live notices whose next attempt (or confirm timeout) is due now: part of the backlog
 * @param awaitingConfirm delivered notices waiting for the receiver's confirmation
 * @param live notices not finished
 * @param dead DEAD notices in history
 * @param backlog live notices whose fire time has passed
 * @param oldestBacklogFireAt the earliest fire time in the backlog; null when it is empty
 */
public record NoticeCounts(long due, long awaitingConfirm, long live, long dead, long backlog,
    Instant oldestBacklogFireAt) {
  /** No notice at all. */
  public static final NoticeCounts NONE = new NoticeCounts(0, 0, 0, 0, 0, null);

  /** How long ago the oldest notice of the backlog was due to fire; zero when the backlog is empty. */
  public Duration backlogAge(Instant now) {
    if (oldestBacklogFireAt == null || !now.isAfter(oldestBacklogFireAt)) {
      return Duration.ZERO;
    }
    return Duration.between(oldestBacklogFireAt, now);
  }

  /** These counts with {@code n} DEAD notices. */
  public NoticeCounts withDead(long n) {
    return new NoticeCounts(due, awaitingConfirm, live, n, backlog, oldestBacklogFireAt);
  }

  /** The counts of several definitions together: the backlog's oldest fire time, and the rest summed. */
  public static NoticeCounts total(Collection<NoticeCounts> counts) {
    long due = 0;
    long awaiting = 0;
    long live = 0;
    long dead = 0;
    long backlog = 0;
    Instant oldest = null;
    for (NoticeCounts c : counts) {
      due += c.due();
      awaiting += c.awaitingConfirm();
      live += c.live();
      dead += c.dead();
      backlog += c.backlog();
      if (c.oldestBacklogFireAt() != null && (oldest == null || c.oldestBacklogFireAt().isBefore(oldest))) {
        oldest = c.oldestBacklogFireAt();
      }
    }
    return new NoticeCounts(due, awaiting, live, dead, backlog, oldest);
  }
}
