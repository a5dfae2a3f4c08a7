package dev.herald.engine;

import dev.herald.NoticeDefinition;
import dev.herald.spi.NoticeRow;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A notice this node has leased and holds in memory, from its claim until its outcome is recorded
 * or it is let go. Its stage moves only forward, and only by compare-and-set, so an operator taking
 * it back and the timer starting it cannot both win.
 */
final class HeldNotice {
  /** Where a held notice is; see {@link Holdings}. */
  enum Stage {
    /** In the timer's heap, waiting for its due time. */
    TIMER,
    /** Taken out of the heap at its due time, waiting for a delivery slot. */
    WAITING,
    /** Its attempt is running. */
    DELIVERING,
    /** Its outcome is queued or being written. */
    RECORDING,
    /**
     * Taken out of the pipeline before its attempt (by an operator's action, a revocation, a
     * retirement): still counted as held while its row is being changed or released, so that nothing
     * takes that row for a stray one meanwhile.
     */
    TAKEN,
    /** Let go: its row changed or released, or its outcome recorded. */
    GONE
  }

  final NoticeRow row;
  final NoticeDefinition definition;
  final long dueMillis;
  private final AtomicReference<Stage> stage = new AtomicReference<>(Stage.TIMER);

  HeldNotice(NoticeRow row, NoticeDefinition definition) {
    this(row, definition, row.notice().nextAttemptAt().toEpochMilli());
  }

  /** The same claim, due at another time (a deferral kept in memory). */
  HeldNotice(NoticeRow row, NoticeDefinition definition, long dueMillis) {
    this.row = row;
    this.definition = definition;
    this.dueMillis = dueMillis;
  }

  UUID id() {
    return row.id();
  }

  String owner() {
    return row.owner();
  }

  Stage stage() {
    return stage.get();
  }

  boolean move(Stage from, Stage to) {
    return stage.compareAndSet(from, to);
  }

  void moveTo(Stage to) {
    stage.set(to);
  }
}
