package dev.herald.engine;

import dev.herald.AlertEvent;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: outcomes queue up while a transaction is being written, and the next transaction
 * takes them all (up to the batch size). Under load the cost per outcome falls; alone, an outcome
 * waits for no one.
 */
final class OutcomeWriter {
  private static final Logger log = LoggerFactory.getLogger(OutcomeWriter.class);

  /** One change to record; {@code held} is the in-memory notice it came from, or null. */
  record Pending(HeldNotice held, Change change, AlertEvent alert) {}

  /** Told, after the transaction commits, which changes applied. */
  interface Callback {
    void recorded(Pending pending, boolean applied);

    /** After every change of a committed batch was reported: the ones that applied. */
    default void batchRecorded(List<Pending> applied) {}
  }

  /** Refusals of a batch, by a reachable database, before it is split (and a single outcome dropped). */
  private static final int MAX_REFUSALS = 3;

  private final NoticeStore store;
  private final int batchSize;
  private final Callback callback;
  private final Listeners listeners;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private volatile boolean stopping;
  private volatile long giveUpAtNanos = Long.MAX_VALUE;

  OutcomeWriter(NoticeStore store, int batchSize, Callback callback, Listeners listeners) {
    this.store = store;
    this.batchSize = batchSize;
    this.callback = callback;
    this.listeners = listeners;
  }

  void submit(Pending pending) {
    queue.add(pending);
  }

  int backlog() {
    return queue.size();
  }

  /** The writer thread's loop: runs until {@link #stop} and the queue is empty. */
  void run() {
    List<Pending> batch = new ArrayList<>(batchSize);
    while (!(stopping && queue.isEmpty())) {
      try {
        Pending first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, batchSize - 1);
        write(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable e) { // an Error too: a dead writer would leave every outcome unrecorded, silently
        listeners.onEngineError("record outcomes", e);
        log.error("Herald: recording {} outcome(s) failed; trying again", batch.size(), e);
        queue.addAll(batch);
        java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
      } finally {
        batch.clear();
      }
    }
  }

  /**
   * Writes the changes in one transaction, retrying with back-off while the database is down, and
   * reports each. A batch that keeps failing for another reason (a row the database refuses) is
   * split, and a single outcome that still fails is given up: its lease expires and the notice is
   * delivered again (at least once), rather than one bad row stopping every other outcome. Gives up
   * on everything only when stopping past its deadline.
   */
  void write(List<Pending> batch) throws InterruptedException {
    List<Change> changes = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      changes.add(p.change());
    }
    long backoff = 50;
    int failures = 0;
    while (true) {
      List<Boolean> applied;
      long started = System.nanoTime();
      try {
        applied = store.apply(changes);
        listeners.onOutcomesWritten(changes.size(), java.time.Duration.ofNanos(System.nanoTime() - started));
      } catch (RuntimeException e) {
        failures++;
        listeners.onEngineError("record outcomes", e);
        if (stopping && System.nanoTime() > giveUpAtNanos) {
          log.error("Herald: giving up recording {} outcome(s) at shutdown; their leases will expire and"
              + " they will be delivered again", batch.size(), e);
          return;
        }
        if (!databaseUnreachable(e) && failures >= MAX_REFUSALS) {
          if (batch.size() > 1) {
            for (Pending p : batch) {
              write(List.of(p));
            }
          } else {
            writeRefused(batch.getFirst(), e);
          }
          return;
        }
        log.warn("Herald: cannot record {} outcome(s), retrying in {} ms: {}", batch.size(), backoff, e.getMessage());
        Thread.sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
        continue;
      }
      report(batch, applied);
      return;
    }
  }

  private void report(List<Pending> batch, List<Boolean> applied) {
    List<Pending> done = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      try {
        callback.recorded(batch.get(i), applied.get(i));
      } catch (Throwable t) {
        listeners.onEngineError("after recording notice " + batch.get(i).change().expected().id(), t);
      }
      if (applied.get(i)) {
        done.add(batch.get(i));
      }
    }
    try {
      callback.batchRecorded(done);
    } catch (Throwable t) {
      listeners.onEngineError("after recording outcomes", t);
    }
  }

  /**
   * One outcome the database keeps refusing (a value it cannot store, say): written again with its
   * free text reduced to plain ASCII and a short note, so that the notice moves on rather than being
   * redelivered without end. If even that is refused, the notice is reported and left to operators.
   */
  private void writeRefused(Pending p, RuntimeException cause) {
    Change plain = Sanitized.of(p.change(), cause);
    try {
      if (store.apply(List.of(plain)).getFirst()) {
        log.error("Herald: the outcome of notice {} was refused ({}); recorded it with its text reduced",
            plain.expected().id(), cause.getMessage());
        report(List.of(new Pending(p.held(), plain, p.alert())), List.of(true));
        return;
      }
    } catch (RuntimeException again) {
      cause.addSuppressed(again);
    }
    log.error("Herald: giving up recording the outcome of notice {}: the database refuses it", plain.expected().id(),
        cause);
    listeners.onEngineError("record the outcome of notice " + plain.expected().id(), cause);
    report(List.of(p), List.of(false));
  }

  /** Connection-level failures (SQLState class 08, transient or recoverable): worth waiting out. */
  static boolean databaseUnreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransientException || t instanceof java.sql.SQLRecoverableException) {
        return true;
      }
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
        return true;
      }
    }
    return false;
  }

  /** Asks the loop to finish what is queued and stop; retries end {@code graceNanos} from now. */
  void stop(long graceNanos) {
    giveUpAtNanos = System.nanoTime() + graceNanos;
    stopping = true;
  }
}
