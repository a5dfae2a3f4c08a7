package dev.herald.engine;

import dev.herald.AlertEvent;
import dev.herald.NoticeStatus;
import dev.herald.StoreException;
import dev.herald.spi.Applied;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fourth stage, record: group commit. Outcomes queue up while a transaction is being written,
 * and the next transaction takes them all (up to the batch size); each is reported to the {@link
 * Settler} once its fate is known. Under load the cost per outcome falls; alone, an outcome waits
 * for no one.
 *
 * <p>A batch whose commit got no answer may have landed: before writing it again, the recorder
 * reads its rows back and counts what landed as written, so a lost answer neither hides an outcome
 * nor makes a written one look stale.
 */
final class Recorder {
  private static final Logger log = LoggerFactory.getLogger(Recorder.class);

  /** One change to record; {@code held} is the in-memory notice it came from, or null. */
  record Pending(HeldNotice held, Change change, AlertEvent alert) {}

  /** Told, after the transaction commits, what became of each change. */
  interface Settler {
    void recorded(Pending pending, Applied applied);

    /** After every change of a batch was reported: the ones written. */
    default void batchRecorded(List<Pending> written) {}
  }

  /** Refusals of a batch, by a reachable database, before it is split (and a single outcome dropped). */
  private static final int MAX_REFUSALS = 3;

  private final NoticeStore store;
  private final int batchSize;
  private final Settler settler;
  private final Listeners listeners;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private volatile boolean stopping;
  private volatile long giveUpAtNanos = Long.MAX_VALUE;

  Recorder(NoticeStore store, int batchSize, Settler settler, Listeners listeners) {
    this.store = store;
    this.batchSize = batchSize;
    this.settler = settler;
    this.listeners = listeners;
  }

  void submit(Pending pending) {
    queue.add(pending);
  }

  int backlog() {
    return queue.size();
  }

  /** A writer thread's loop: runs until {@link #stop} and the queue is empty. */
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
   * reports each. After a commit without an answer it first learns which changes landed. A batch
   * that keeps failing for another reason (a row the database refuses) is split, and a single
   * outcome that still fails is written with its text reduced, or given up (reported unwritten: its
   * notice is let go, and reconciliation or the node timeout frees its row). Gives up on everything
   * only when stopping past its deadline.
   */
  void write(List<Pending> batch) throws InterruptedException {
    List<Pending> todo = new ArrayList<>(batch);
    long backoff = 50;
    int failures = 0;
    boolean inDoubt = false;
    while (!todo.isEmpty()) {
      try {
        if (inDoubt) {
          todo = settleLanded(todo);
          inDoubt = false;
          continue;
        }
        List<Change> changes = new ArrayList<>(todo.size());
        for (Pending p : todo) {
          changes.add(p.change());
        }
        long started = System.nanoTime();
        List<Applied> applied = store.apply(changes);
        listeners.onOutcomesWritten(changes.size(), Duration.ofNanos(System.nanoTime() - started));
        report(todo, applied);
        return;
      } catch (RuntimeException e) {
        failures++;
        inDoubt |= !(e instanceof StoreException se) || se.outcomeUnknown();
        listeners.onEngineError("record outcomes", e);
        if (stopping && System.nanoTime() > giveUpAtNanos) {
          log.error("Herald: giving up recording {} outcome(s) at shutdown; they will be delivered again once"
              + " their rows are free", todo.size(), e);
          return;
        }
        if (!inDoubt && !databaseUnreachable(e) && failures >= MAX_REFUSALS) {
          if (todo.size() > 1) {
            for (Pending p : todo) {
              write(List.of(p));
            }
          } else {
            writeRefused(todo.getFirst(), e);
          }
          return;
        }
        log.warn("Herald: cannot record {} outcome(s), retrying in {} ms: {}", todo.size(), backoff, e.getMessage());
        TimeUnit.MILLISECONDS.sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  /**
   * After a commit whose answer was lost: reads each change's row and reports those that landed
   * (or turned stale meanwhile); returns those still to write. Throws if the database cannot answer.
   */
  private List<Pending> settleLanded(List<Pending> batch) {
    List<Pending> todo = new ArrayList<>();
    List<Pending> known = new ArrayList<>();
    List<Applied> fates = new ArrayList<>();
    for (Pending p : batch) {
      Optional<NoticeRow> now = store.find(p.change().expected().id());
      Applied fate = now.isPresent() ? fate(p.change(), now.get()) : Applied.STALE;
      if (fate == null) {
        todo.add(p);
      } else {
        known.add(p);
        fates.add(fate);
      }
    }
    if (!known.isEmpty()) {
      log.info("Herald: a commit's answer was lost; {} of {} outcome(s) had landed", fates.stream()
          .filter(Applied::written).count(), batch.size());
      report(known, fates);
    }
    return todo;
  }

  /** What became of {@code c}, judged by its row now: null if it did not land (the row is as expected). */
  static Applied fate(Change c, NoticeRow now) {
    if (now.version() == c.expected().version()) {
      return null;
    }
    if (same(now, c.next())) {
      return Applied.APPLIED;
    }
    if (c.ifConfirmed() != null && same(now, c.ifConfirmed())) {
      return Applied.CONFIRMED;
    }
    return Applied.STALE;
  }

  private static boolean same(NoticeRow a, NoticeRow b) {
    return a.version() == b.version() && a.status() == b.status() && Objects.equals(a.owner(), b.owner())
        && a.notice().attempts() == b.notice().attempts()
        && (a.status() == NoticeStatus.IN_FLIGHT || Objects.equals(a.notice().nextAttemptAt(), b.notice().nextAttemptAt()));
  }

  private void report(List<Pending> batch, List<Applied> applied) {
    List<Pending> done = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      try {
        settler.recorded(batch.get(i), applied.get(i));
      } catch (Throwable t) {
        listeners.onEngineError("after recording notice " + batch.get(i).change().expected().id(), t);
      }
      if (applied.get(i).written()) {
        done.add(batch.get(i));
      }
    }
    try {
      settler.batchRecorded(done);
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
      Applied applied = store.apply(List.of(plain)).getFirst();
      if (applied.written()) {
        log.error("Herald: the outcome of notice {} was refused ({}); recorded it with its text reduced",
            plain.expected().id(), cause.getMessage());
        report(List.of(new Pending(p.held(), plain, p.alert())), List.of(applied));
        return;
      }
    } catch (RuntimeException again) {
      cause.addSuppressed(again);
    }
    log.error("Herald: giving up recording the outcome of notice {}: the database refuses it", plain.expected().id(),
        cause);
    listeners.onEngineError("record the outcome of notice " + plain.expected().id(), cause);
    report(List.of(p), List.of(Applied.STALE));
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
