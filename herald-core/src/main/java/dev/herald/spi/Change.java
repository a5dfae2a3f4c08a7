package dev.herald.spi;

import dev.herald.Attempt;
import dev.herald.PendingAlert;

/**
 * One optimistic change of a notice: it applies only if the stored version still equals {@code
 * expected.version()}. Moving to a finished status archives the row; moving from one restores it.
 *
 * @param expected the row as the writer last saw it
 * @param next the row to store
 * @param attempt the attempt to log with it, or null
 * @param alert the alert this outcome raises, or null: a store writes it to its alert outbox in the
 *     same transaction, if and only if the change applies (so an alert is never lost with a crash
 *     after the commit, nor written for an outcome that did not happen)
 */
public record Change(NoticeRow expected, NoticeRow next, Attempt attempt, PendingAlert alert) {

  /** A change that raises no alert. */
  public Change(NoticeRow expected, NoticeRow next, Attempt attempt) {
    this(expected, next, attempt, null);
  }

  public Change {
    expected.status().checkMoveTo(next.status(), expected.id());
    if (next.version() <= expected.version()) {
      throw new IllegalArgumentException("next version must be greater than " + expected.version());
    }
  }
}
