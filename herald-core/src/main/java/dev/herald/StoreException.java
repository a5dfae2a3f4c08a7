package dev.herald;

/**
 * The database failed or could not be reached. Nothing Herald promised was acknowledged. Whether
 * anything was written is told by {@link #outcomeUnknown()}.
 */
public class StoreException extends HeraldException {
  private final boolean outcomeUnknown;

  /** A failure before the transaction could commit: nothing was written. */
  public StoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  /** @param outcomeUnknown the commit was sent and its answer lost: the work may have been written */
  public StoreException(String message, Throwable cause, boolean outcomeUnknown) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /**
   * True when the transaction was asked to commit and no answer came (a connection broken during
   * the commit): it may have committed. False when it failed before, so nothing was written (the
   * pool had no connection, a statement failed, the database refused).
   */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
