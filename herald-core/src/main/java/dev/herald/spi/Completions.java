package dev.herald.spi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Completes futures off the thread that learnt their results (a broker client's I/O thread, which
 * must go back to reading), in bursts: one task on {@code executor} drains every result queued
 * meanwhile, so a confirm of a hundred messages costs one hand-over, not a hundred threads. What
 * follows a completion runs on that task, one after another.
 */
public final class Completions {
  private record Done<T>(CompletableFuture<T> future, T value) {
    void complete() {
      future.complete(value);
    }
  }

  private final ConcurrentLinkedQueue<Done<?>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final Executor executor;

  /** {@code executor} runs the draining task (a virtual thread per burst is the intended use). */
  public Completions(Executor executor) {
    this.executor = executor;
  }

  /** Completes {@code future} with {@code value} soon, on the draining task. */
  public <T> void complete(CompletableFuture<T> future, T value) {
    queue.add(new Done<>(future, value));
    if (draining.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException closing) {
        drain(); // the executor is shut down: nobody else will
      }
    }
  }

  private void drain() {
    do {
      Done<?> d;
      while ((d = queue.poll()) != null) {
        d.complete(); // a dependent stage that throws fails its own future, never this loop
      }
      draining.set(false);
      // a result queued after the poll above and before the flag fell found it still set: take it now
    } while (!queue.isEmpty() && draining.compareAndSet(false, true));
  }
}
