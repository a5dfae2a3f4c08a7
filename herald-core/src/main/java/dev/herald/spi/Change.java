package dev.herald.spi;

import dev.herald.Attempt;
import dev.herald.NoticeStatus;
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
 * @param ifConfirmed the notice as confirmed ({@code SUCCEEDED}, the version after {@code next}), or
 *     null: if the change applies and a confirmation of the notice arrived early (recorded with
 *     {@link NoticeStore#recordEarlyConfirmation} while it was in flight), the store consumes that
 *     confirmation and stores this instead, in the same transaction, without the alert; {@link
 *     NoticeStore#apply} then answers {@link Applied#CONFIRMED}
 */
public record Change(NoticeRow expected, NoticeRow next, Attempt attempt, PendingAlert alert, NoticeRow ifConfirmed) {

  /** A change that raises no alert. */
  public Change(NoticeRow expected, NoticeRow next, Attempt attempt) {
    this(expected, next, attempt, null, null);
  }

  /** A change that no early confirmation turns into a success. */
  public Change(NoticeRow expected, NoticeRow next, Attempt attempt, PendingAlert alert) {
    this(expected, next, attempt, alert, null);
  }

  public Change {
    expected.status().checkMoveTo(next.status(), expected.id());
    if (next.version() <= expected.version()) {
      throw new IllegalArgumentException("next version must be greater than " + expected.version());
    }
    if (ifConfirmed != null) {
      next.status().checkMoveTo(NoticeStatus.SUCCEEDED, next.id());
      if (ifConfirmed.status() != NoticeStatus.SUCCEEDED || ifConfirmed.version() != next.version() + 1) {
        throw new IllegalArgumentException("ifConfirmed must be SUCCEEDED at version " + (next.version() + 1));
      }
    }
  }

  /** The same change, turned into {@code ifConfirmed} when an early confirmation of its notice waits. */
  public Change confirmable(NoticeRow confirmed) {
    return new Change(expected, next, attempt, alert, confirmed);
  }

  /** The change from {@code next} to {@code ifConfirmed}, which a store writes when it consumes a confirmation. */
  public Change confirmation() {
    if (ifConfirmed == null) {
      throw new IllegalStateException("change of notice " + next.id() + " has no confirmed form");
    }
    return new Change(next, ifConfirmed, null);
  }
}
