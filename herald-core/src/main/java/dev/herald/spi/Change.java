package dev.herald.spi;

import dev.herald.Attempt;

/**
 * One optimistic change of a notice: it applies only if the stored version still equals {@code
 * expected.version()}. Moving to a finished status archives the row; moving from one restores it.
 *
 * @param expected the row as the writer last saw it
 * @param next the row to store
 * @param attempt the attempt to log with it, or null
 */
public record Change(NoticeRow expected, NoticeRow next, Attempt attempt) {
  public Change {
    expected.status().checkMoveTo(next.status(), expected.id());
    if (next.version() <= expected.version()) {
      throw new IllegalArgumentException("next version must be greater than " + expected.version());
    }
  }
}
