package dev.herald.engine;

import dev.herald.Notice;
import dev.herald.NoticeNotFoundException;
import dev.herald.spi.NoticeRow;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Callers waiting for a notice's next recorded outcome on this node. */
final class OutcomeWaiters {
  private record Waiter(CompletableFuture<Notice> future, long sinceMillis) {}

  private final Map<UUID, Waiter> waiters = new ConcurrentHashMap<>();
  private final Clock clock;

  OutcomeWaiters(Clock clock) {
    this.clock = clock;
  }

  /**
   * A future of the notice after its next attempt, or at once if it already had one or finished.
   * Each caller gets its own copy, so cancelling one leaves the others be.
   */
  CompletableFuture<Notice> register(UUID id, Supplier<Optional<NoticeRow>> current) {
    Waiter w = waiters.computeIfAbsent(id, k -> new Waiter(new CompletableFuture<>(), clock.millis()));
    CompletableFuture<Notice> mine = w.future().copy();
    // The outcome may have been recorded before the waiter was registered.
    current.get().ifPresentOrElse(row -> {
      if (row.notice().attempts() > 0 || row.status().isFinished()) {
        waiters.remove(id, w);
        w.future().complete(row.notice());
      }
    }, () -> {
      waiters.remove(id, w);
      w.future().completeExceptionally(new NoticeNotFoundException(id));
    });
    return mine;
  }

  /** An attempt of {@code notice} was recorded. */
  void recorded(Notice notice) {
    if (!waiters.isEmpty()) {
      Waiter w = waiters.remove(notice.id());
      if (w != null) {
        w.future().complete(notice);
      }
    }
  }

  /** Drops waiters older than {@code maxAgeMillis} (their notice was attempted elsewhere, or never). */
  void expire(long maxAgeMillis) {
    long tooOld = clock.millis() - maxAgeMillis;
    waiters.values().removeIf(w -> w.future().isDone() || w.sinceMillis() < tooOld
        && w.future().completeExceptionally(new TimeoutException("no attempt on this node in time")));
  }
}
