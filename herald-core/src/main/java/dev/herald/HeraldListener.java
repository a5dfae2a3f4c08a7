package dev.herald;

/**
 * Observes the engine. Called after the change it reports is committed, on an engine thread: keep
 * it quick and never block. An exception thrown here is logged and otherwise ignored.
 */
public interface HeraldListener {
  /** A notice was enqueued and committed through Herald's own transaction or helper. */
  default void onEnqueued(Notice notice) {}

  /** An attempt ended and its outcome is recorded; {@code notice} is the state after it. */
  default void onAttempt(Notice notice, Attempt attempt) {}

  /** A notice reached SUCCEEDED, DEAD or CANCELLED. */
  default void onFinished(Notice notice) {}

  /** The definition's alert policy says people should hear about a failure. */
  default void onAlert(AlertEvent alert) {}

  /**
   * An outcome could not be recorded because the notice changed meanwhile (its lease was taken
   * over, or an operator cancelled it); the newer state was kept.
   */
  default void onStaleOutcome(Notice notice, Attempt attempt) {}

  /**
   * A group commit of attempt outcomes went through.
   *
   * @param outcomes changes in the batch
   * @param commitTime from the start of the write to its commit
   */
  default void onOutcomesWritten(int outcomes, java.time.Duration commitTime) {}

  /** A background step failed (database down, say); the engine backs off and tries again. */
  default void onEngineError(String step, Throwable error) {}
}
