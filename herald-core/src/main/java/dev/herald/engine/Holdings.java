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
 * <p>The rule that keeps operators' changes honoured: a notice can be taken only before its attempt
 * starts ({@link Stage#TIMER} or {@link Stage#WAITING}); while it is delivered or its outcome
 * written, {@link #take} answers {@link TakeBack#BUSY} and the operator waits for the outcome. A
 * taken notice stays registered ({@link Stage#TAKEN}) until its taker has changed or released its
 * row and calls {@link #done}.
 */
final class Holdings {
  /** What {@link #take} found. */
  enum TakeBack {
    /** Was held and not started: now {@link Stage#TAKEN}; the caller changes or releases the row, then calls done. */
    TAKEN,
    /** Being delivered or recorded, or taken by someone else, right now: wait. */
    BUSY,
    /** Not held in this node's memory. */
    NOT_HELD
  }

  /** What {@link #take} did, and the notice it took (null unless TAKEN). */
  record Taken(TakeBack result, HeldNotice notice) {}

  private final Map<UUID, HeldNotice> held = new ConcurrentHashMap<>();
  /**
   * Versions of notices whose rows were changed while a claim of them may still have been on its way
   * into memory: a hold of such a version or older is refused at {@link #add}. Kept a minute.
   */
  private final Map<UUID, long[]> superseded = new ConcurrentHashMap<>();
  private final DueTimer timer;
  private final Semaphore room;

  Holdings(DueTimer timer, Semaphore room) {
    this.timer = timer;
    this.room = room;
  }

  DueTimer timer() {
    return timer;
  }

  /**
   * Registers a claimed notice (its permit already taken) and puts it in the timer. False if the id
   * is already held or its version superseded: the permit is given back and the caller releases the row.
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

  boolean isHeld(UUID id) {
    return held.containsKey(id);
  }

  /** The notice held under {@code id} (any stage), or null. */
  HeldNotice get(UUID id) {
    return held.get(id);
  }

  /**
   * The row of {@code id} at {@code version} changed without this node's memory: a claim of that
   * version or older still on its way in must not be held. A notice held at such a version and not
   * started is taken out and let go (its row is no longer what it holds).
   */
  void supersede(UUID id, long version, long nowMillis) {
    superseded.merge(id, new long[] {version, nowMillis}, (a, b) -> a[0] >= b[0] ? a : b);
    HeldNotice h = held.get(id);
    if (h != null && h.row.version() <= version) {
      Taken t = take(id);
      if (t.result() == TakeBack.TAKEN) {
        done(t.notice());
      }
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

  /** Starts an attempt: false if the notice was taken meanwhile. */
  boolean begin(HeldNotice h) {
    return h.move(Stage.WAITING, Stage.DELIVERING);
  }

  void recording(HeldNotice h) {
    h.moveTo(Stage.RECORDING);
  }

  /** The notice left memory (outcome recorded, row changed or released, or dropped). */
  void done(HeldNotice h) {
    h.moveTo(Stage.GONE);
    if (held.remove(h.id(), h)) {
      room.release();
    }
  }

  /** Takes a notice out of the pipeline if its attempt has not started; see {@link TakeBack}. */
  Taken take(UUID id) {
    while (true) {
      HeldNotice h = held.get(id);
      if (h == null) {
        return new Taken(TakeBack.NOT_HELD, null);
      }
      boolean taken = timer.remove(id, h) != null ? h.move(Stage.TIMER, Stage.TAKEN) : h.move(Stage.WAITING, Stage.TAKEN);
      if (taken) {
        return new Taken(TakeBack.TAKEN, h);
      }
      if (h.stage() == Stage.GONE) {
        Thread.onSpinWait(); // being replaced by its next hold, or leaving: look again
        continue;
      }
      return new Taken(TakeBack.BUSY, null); // DELIVERING, RECORDING, TAKEN, or a TIMER hold on its way into the heap
    }
  }

  /** Takes every unstarted notice held under {@code owner} (a retired incarnation); the caller releases and finishes them. */
  List<HeldNotice> takeUnstartedOf(String owner) {
    List<HeldNotice> out = new ArrayList<>();
    for (HeldNotice h : held.values()) {
      if (owner.equals(h.owner())) {
        Taken t = take(h.id());
        if (t.result() == TakeBack.TAKEN) {
          out.add(t.notice());
        }
      }
    }
    return out;
  }

  /** Takes every notice still in the timer and returns them, TAKEN (shutdown: they are released). */
  List<HeldNotice> drainTimer() {
    List<HeldNotice> out = new ArrayList<>();
    for (HeldNotice h : timer.drain()) {
      if (h.move(Stage.TIMER, Stage.TAKEN)) {
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

  /** Notices held under {@code owner}, at any stage. */
  int countOf(String owner) {
    int n = 0;
    for (HeldNotice h : held.values()) {
      if (owner.equals(h.owner())) {
        n++;
      }
    }
    return n;
  }

  /** Notices held under {@code owner} being delivered or recorded. */
  int runningOf(String owner) {
    int n = 0;
    for (HeldNotice h : held.values()) {
      Stage s = h.stage();
      if ((s == Stage.DELIVERING || s == Stage.RECORDING) && owner.equals(h.owner())) {
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
