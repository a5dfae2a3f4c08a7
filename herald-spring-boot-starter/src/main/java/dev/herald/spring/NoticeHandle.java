package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.Notice;
import dev.herald.NoticeDetail;
import dev.herald.NoticeNotFoundException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A published notice: its id, what was stored, and its status now. Document 000's caller "sees the
 * notice's status right after its service call returns" through {@link #current()}.
 */
public final class NoticeHandle {
  private final Herald herald;
  private final Notice enqueued;
  private final BooleanSupplier uncommitted;

  public NoticeHandle(Herald herald, Notice enqueued) {
    this(herald, enqueued, () -> false);
  }

  /** @param uncommitted whether the transaction that wrote the notice is still open */
  NoticeHandle(Herald herald, Notice enqueued, BooleanSupplier uncommitted) {
    this.herald = Objects.requireNonNull(herald, "herald");
    this.enqueued = Objects.requireNonNull(enqueued, "enqueued");
    this.uncommitted = uncommitted;
  }

  public UUID id() {
    return enqueued.id();
  }

  /** The notice as stored when it was published (for a sync-first call: as last seen by it). */
  public Notice enqueued() {
    return enqueued;
  }

  /**
   * The notice as stored now, read from the database; inside the transaction that published it (not
   * committed yet), the notice as written there, which nothing else can see or change before the commit.
   *
   * @throws NoticeNotFoundException if it does not exist: its transaction rolled back, or it was
   *     purged from history
   */
  public Notice current() {
    if (uncommitted.getAsBoolean()) {
      return enqueued;
    }
    return herald.operations().find(id()).map(NoticeDetail::notice).orElseThrow(() -> new NoticeNotFoundException(id()));
  }

  /**
   * Waits until the notice's first attempt on this node is recorded (or returns at once if it already
   * had one, or finished), at most {@code timeout}. Call it after the publishing transaction
   * committed; an uncommitted or rolled-back notice does not exist for this call.
   *
   * @return the notice after its attempt, or empty if none was recorded within the timeout
   * @throws NoticeNotFoundException if the notice does not exist
   */
  public Optional<Notice> awaitFirstOutcome(Duration timeout) {
    try {
      // Not cancelled on timeout: the future may be shared with other waiters on the same notice.
      return Optional.of(herald.outcomeOf(id()).get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new HeraldException("cannot wait for notice " + id() + ": " + e.getCause(), e.getCause());
    }
  }

  @Override
  public String toString() {
    return "NoticeHandle[" + id() + " " + enqueued.definition() + "]";
  }
}
