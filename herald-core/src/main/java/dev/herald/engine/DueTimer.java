package dev.herald.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leased notices ordered by due time (then id, so that each has its own place). A sorted set, not a
 * heap: taking a notice back ({@link #remove}) is O(log n) too. A heap's removal is a linear search,
 * and an incarnation that retires takes back every unstarted notice at once: with 50,000 held, a
 * fresh server under load spent seconds in that search while its callbacks waited (issue 22).
 */
final class DueTimer {
  private final TreeSet<HeldNotice> queue =
      new TreeSet<>(Comparator.comparingLong((HeldNotice h) -> h.dueMillis).thenComparing(HeldNotice::id));
  private final Map<UUID, HeldNotice> byId = new HashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  void add(HeldNotice held) {
    lock.lock();
    try {
      HeldNotice old = byId.put(held.id(), held);
      if (old != null) {
        queue.remove(old);
      }
      queue.add(held);
      if (queue.first() == held) {
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Removes and returns the held notice if it is {@code expected}, or null if that one is not here. */
  HeldNotice remove(UUID id, HeldNotice expected) {
    lock.lock();
    try {
      HeldNotice held = byId.get(id);
      if (held != expected) {
        return null;
      }
      byId.remove(id);
      queue.remove(held);
      return held;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes and returns every notice due at or before {@code nowMillis}, moved to {@link
   * HeldNotice.Stage#WAITING} under the timer's lock, so that {@link #remove} and this never both
   * miss a notice.
   */
  List<HeldNotice> pollDue(long nowMillis, int max) {
    lock.lock();
    try {
      List<HeldNotice> due = new ArrayList<>();
      while (due.size() < max && !queue.isEmpty() && head().dueMillis <= nowMillis) {
        HeldNotice h = queue.pollFirst();
        byId.remove(h.id());
        h.move(HeldNotice.Stage.TIMER, HeldNotice.Stage.WAITING);
        due.add(h);
      }
      return due;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the head is due by {@code nowMillis}'s clock, something earlier arrives, or at most {@code maxMillis}. */
  void awaitDue(java.util.function.LongSupplier nowMillis, long maxMillis) throws InterruptedException {
    lock.lock();
    try {
      HeldNotice head = head();
      long wait = head == null ? maxMillis : Math.min(maxMillis, head.dueMillis - nowMillis.getAsLong());
      if (wait > 0) {
        changed.await(wait, TimeUnit.MILLISECONDS);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether at least {@code atLeast} notices wait here and the first is due by {@code nowMillis}. */
  boolean backlogged(long nowMillis, int atLeast) {
    lock.lock();
    try {
      HeldNotice head = head();
      return queue.size() >= atLeast && head != null && head.dueMillis <= nowMillis;
    } finally {
      lock.unlock();
    }
  }

  void wakeUp() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  List<HeldNotice> drain() {
    lock.lock();
    try {
      List<HeldNotice> all = new ArrayList<>(queue);
      queue.clear();
      byId.clear();
      return all;
    } finally {
      lock.unlock();
    }
  }

  private HeldNotice head() {
    return queue.isEmpty() ? null : queue.first();
  }
}
