package dev.herald.intake;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Enqueues one request for an intake, waiting while Herald refuses for now (see {@link
 * Refusals#forNow}): back-pressure (its backlog is over {@code maxBacklog}) or the database being
 * away. The intake holds the message,
 * unacknowledged, until the notice is committed, so a queue's own flow control (prefetch, paused
 * partitions) stops the rest: intake pauses and resumes by itself.
 */
public final class IntakeRetry {
  /** What an intake reports while it waits; one call per refusal. */
  public interface Pausing {
    void paused(RuntimeException why);
  }

  private IntakeRetry() {}

  /**
   * The committed notice (or the one an earlier message with the same key made), or null if the
   * intake stopped while waiting.
   *
   * @throws RuntimeException whatever Herald refused the request with for good ({@link
   *     dev.herald.InvalidInputException}, {@link dev.herald.UnknownDefinitionException}, a value no
   *     database column holds...): the intake parks the message
   */
  public static Notice enqueue(Herald herald, NoticeRequest request, Duration pause, BooleanSupplier running,
      Pausing listener) {
    while (running.getAsBoolean()) {
      try {
        return herald.enqueue(request);
      } catch (RuntimeException e) {
        if (!Refusals.forNow(e)) {
          throw e;
        }
        listener.paused(e);
        try {
          Thread.sleep(pause);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return null;
        }
      }
    }
    return null;
  }
}
