package dev.herald.engine;

import dev.herald.engine.HeldNotice.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Every notice this node holds, from claim to recorded outcome, in one registry: the timer's heap is
 * only an index of the ones waiting for their due time. Each held notice takes one permit of
 * {@code room} (the {@code maxHeld} bound) and gives it back exactly once, when it leaves.
 *
 * <p>The rule that keeps operators' changes honoured: a notice can be taken back only before its
 * attempt starts ({@link Stage#TIMER} or {@link Stage#WAITING}); while it is delivered or its
 * outcome written, {@link #takeBack} answers {@link TakeBack#BUSY} and the operator waits for the
 * outcome. Whoever takes a notice out of memory without recording its outcome must change or
 * release its row, or it would stay leased by a live node.
 */
final class Holdings {
  /** What {@link #takeBack} found. */
  enum TakeBack {
    /** Was held and not started: now out of memory; the caller changes or releases the row. */
    TAKEN,
    /** Being delivered or recorded right now: wait for its outcome. */
    BUSY,
    /** Not held in this node's memory. */
    NOT_HELD
  }

  private final Map<UUID, HeldNotice> held = new ConcurrentHashMap<>();
  /**
   * Versions of notices an operator changed while this node's claim of them may still have been on
   * its way into memory: a hold of such a version or older is dropped at {@link #add}. Kept a minute.
   */
  private final Map<UUID, long[]> superseded = new ConcurrentHashMap<>();
  private final DueTimer timer;
  private final Semaphore room;

  Holdings(DueTimer timer, Semaphore room) {
    this.timer = timer;
    this.room = room;
  }

  /**
   * Registers a claimed notice (its permit already taken) and puts it in the timer. False if the id
   * is already held or reserved: the permit is given back and the caller must release the row.
   */
  boolean add(HeldNotice h) {
    long[] gone = superseded.get(h.id());
    if (gone != null && h.row.version() <= gone[0]) {
      room.release();
      return false;
    }
    if (held.putIfAbsent(h.id(), h) != null) {
      room.release();
      return false;
    }
    timer.add(h);
    return true;
  }

  /**
   * An operator is changing version {@code version} of a notice this node owns but does not hold in
   * memory: if a claim of it is still on its way in, it must not be fired.
   */
  void supersede(UUID id, long version, long nowMillis) {
    superseded.merge(id, new long[] {version, nowMillis}, (a, b) -> a[0] >= b[0] ? a : b);
    HeldNotice h = held.get(id);
    if (h != null && h.row.version() <= version) {
      takeBack(id);
    }
  }

  /** Forgets supersessions older than {@code beforeMillis}. */
  void expireSupersessions(long beforeMillis) {
    superseded.values().removeIf(v -> v[1] < beforeMillis);
  }

  /** Replaces a notice whose outcome was recorded with its next hold (a retry kept in memory, a deferral). */
  void reschedule(HeldNotice old, HeldNotice next) {
    replace(old, next);
    timer.add(next);
  }

  /** Hands a notice's permit and place over to its next hold, which the caller keeps out of the timer. */
  void replace(HeldNotice old, HeldNotice next) {
    old.moveTo(Stage.GONE);
    if (!held.replace(old.id(), old, next)) {
      throw new IllegalStateException("notice " + old.id() + " is not held as expected");
    }
  }

  /** Puts a notice taken from the timer back, unstarted (the engine is stopping). */
  void putBack(HeldNotice h) {
    if (h.move(Stage.WAITING, Stage.TIMER)) {
      timer.add(h);
    }
  }

  /** Starts an attempt: false if the notice was taken back meanwhile. */
  boolean begin(HeldNotice h) {
    return h.move(Stage.WAITING, Stage.DELIVERING);
  }

  void recording(HeldNotice h) {
    h.moveTo(Stage.RECORDING);
  }

  /** The notice left memory (outcome recorded, released, or lost with a lapsed incarnation). */
  void done(HeldNotice h) {
    h.moveTo(Stage.GONE);
    if (held.remove(h.id(), h)) {
      room.release();
    }
  }

  /** What {@link #take} did, and the notice it took out of memory (null unless TAKEN). */
  record Taken(TakeBack result, HeldNotice notice) {}

  /** Takes a notice out of memory if its attempt has not started. */
  TakeBack takeBack(UUID id) {
    return take(id).result();
  }

  Taken take(UUID id) {
    while (true) {
      HeldNotice h = held.get(id);
      if (h == null) {
        return new Taken(TakeBack.NOT_HELD, null);
      }
      boolean taken = timer.remove(id, h) != null ? h.move(Stage.TIMER, Stage.GONE) : h.move(Stage.WAITING, Stage.GONE);
      if (taken) {
        if (held.remove(id, h)) {
          room.release();
        }
        return new Taken(TakeBack.TAKEN, h);
      }
      if (h.stage() == Stage.GONE) {
        Thread.onSpinWait(); // being replaced by its next hold, or leaving: look again
        continue;
      }
      return new Taken(TakeBack.BUSY, null); // DELIVERING, RECORDING, or a TIMER hold on its way into the heap
    }
  }

  /** Takes every unstarted notice held under another owner than {@code current} out of memory (a lapse). */
  int dropUnstartedNotOwnedBy(String current) {
    int dropped = 0;
    for (HeldNotice h : held.values()) {
      if (!current.equals(h.owner()) && takeBack(h.id()) == TakeBack.TAKEN) {
        dropped++;
      }
    }
    return dropped;
  }

  /** Takes every notice still in the timer out of memory and returns them (shutdown: they are released). */
  List<HeldNotice> drainTimer() {
    List<HeldNotice> out = new ArrayList<>();
    for (HeldNotice h : timer.drain()) {
      if (h.move(Stage.TIMER, Stage.GONE)) {
        held.remove(h.id(), h);
        room.release();
        out.add(h);
      }
    }
    return out;
  }


  /** Held notices at {@code stage} now (a moment's count: stages move while it is taken). */
  int count(Stage stage) {
    int n = 0;
    for (HeldNotice h : held.values()) {
      if (h.stage() == stage) {
        n++;
      }
    }
    return n;
  }

  /** Notices being delivered or recorded. */
  int running() {
    int n = 0;
    for (HeldNotice h : held.values()) {
      Stage s = h.stage();
      if (s == Stage.DELIVERING || s == Stage.RECORDING) {
        n++;
      }
    }
    return n;
  }
}
