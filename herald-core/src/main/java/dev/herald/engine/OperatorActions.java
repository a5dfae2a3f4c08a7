package dev.herald.engine;

import dev.herald.HeraldException;
import dev.herald.IllegalTransitionException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeOperations;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What operators do to notices: each action reads the notice, checks the status machine, and
 * applies one optimistic change (again, if the notice moved meanwhile).
 *
 * <p>A notice held by a node (IN_FLIGHT) is first secured, so that no attempt can start after the
 * action returns: one this node holds and has not started is taken out of memory; one another live
 * node holds is asked for (a revocation the holder answers at its next heartbeat); one being
 * delivered is waited for, up to {@link HeldNotices#patience()}. A confirmation never waits: one
 * that arrives during the delivery it confirms is recorded and applied with that delivery's outcome.
 */
final class OperatorActions implements NoticeOperations {
  private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

  /** What the actions need from the engine that holds notices in memory. */
  interface HeldNotices {
    /** Takes a notice held here out of the pipeline if it has not started. */
    Holdings.Taken take(UUID id);

    /** The taker of {@code h} is done with its row; {@code written} false if it may still be held here by no memory. */
    void settled(HeldNotice h, boolean written);

    /** See {@link Holdings#supersede}. */
    void supersede(UUID id, long version);

    /** Whether {@code owner} is one of this node's incarnations (current, or retired with attempts still running). */
    boolean isMine(String owner);

    boolean ownerAlive(String owner);

    /** How long an action waits for a running attempt to end, or for another node to let go. */
    java.time.Duration patience();

    void wakePoller();

    boolean running();
  }

  /** How an action got hold of a notice: {@code taken} is set when it was taken out of this node's memory. */
  private record Hold(Kind kind, HeldNotice taken) {
    static final Hold FREE = new Hold(Kind.FREE, null);
    static final Hold WAIT = new Hold(Kind.WAIT, null);
  }

  private enum Kind {
    /** Nobody live holds it: the optimistic change decides. */
    FREE,
    /** Taken out of this node's pipeline: the action must change or release the row. */
    TAKEN,
    /** Being delivered, or held by another live node that was asked to let go: look again soon. */
    WAIT
  }

  private final NoticeStore store;
  private final DefinitionCache definitions;
  private final Intake intake;
  private final Clock clock;
  private final Listeners listeners;
  private final HeldNotices held;

  OperatorActions(NoticeStore store, DefinitionCache definitions, Intake intake, Clock clock, Listeners listeners,
      HeldNotices held) {
    this.store = store;
    this.definitions = definitions;
    this.intake = intake;
    this.clock = clock;
    this.listeners = listeners;
    this.held = held;
  }

  @Override
  public Optional<NoticeDetail> find(UUID id) {
    return store.find(id).map(row -> new NoticeDetail(row.notice(), store.attempts(id)));
  }

  @Override
  public Page<Notice> query(NoticeQuery query) {
    return store.query(query);
  }

  @Override
  public Notice resend(UUID id) {
    Notice n = change(id, NoticeStatus.PENDING, row -> Transitions.resend(row, clock.instant()));
    if (held.running()) {
      held.wakePoller();
    }
    return n;
  }

  @Override
  public Notice edit(UUID id, dev.herald.NoticeEdit edit) {
    if (edit == null) {
      throw new dev.herald.InvalidInputException("edit", "must not be null");
    }
    NoticeRow first = store.find(id).orElseThrow(() -> new NoticeNotFoundException(id));
    dev.herald.NoticeEdit checked = intake.checkEdit(first.notice().definition(), edit); // before anything is taken
    return change(id, null, row -> {
      NoticeStatus s = row.status();
      boolean undelivered = s == NoticeStatus.PENDING || s == NoticeStatus.FAILED
          || (s == NoticeStatus.IN_FLIGHT && !Transitions.wasDelivered(row));
      if (!undelivered) {
        throw new IllegalTransitionException(id, s, s, "only a notice not yet delivered can be edited");
      }
      return Transitions.edit(row, checked, clock.instant());
    });
  }

  @Override
  public Notice cancel(UUID id) {
    return change(id, NoticeStatus.CANCELLED, row -> Transitions.move(row, NoticeStatus.CANCELLED, null, clock.instant()));
  }

  /**
   * Confirms a delivered notice. Idempotent; never waits for a delivery: one that arrives while the
   * notice is in flight (being delivered, here or on another node) is recorded, and the next outcome
   * recorded for the notice consumes it, whatever that outcome is, in its own transaction. A notice
   * whose last attempt failed can be confirmed too: the receiver says it got one, whatever Herald saw
   * of the answer.
   */
  @Override
  public Notice confirm(UUID id) {
    long deadline = System.nanoTime() + held.patience().toNanos();
    while (true) {
      NoticeRow row = store.find(id).orElseThrow(() -> new NoticeNotFoundException(id));
      Notice done = switch (row.status()) {
        case SUCCEEDED -> row.notice(); // confirmed already (perhaps by an early confirmation)
        case AWAITING_CONFIRM -> applyConfirm(row);
        case FAILED -> {
          if (row.notice().attempts() == 0) {
            throw new IllegalTransitionException(id, row.status(), NoticeStatus.SUCCEEDED, "it has never been sent");
          }
          yield applyConfirm(row);
        }
        case DEAD -> {
          if (!diedUnconfirmed(row)) {
            throw new IllegalTransitionException(id, row.status(), NoticeStatus.SUCCEEDED,
                "only a delivered notice can be confirmed; this one failed");
          }
          yield applyConfirm(row); // a late confirmation of a notice declared dead for the want of it
        }
        case IN_FLIGHT -> confirmInFlight(row);
        default -> throw new IllegalTransitionException(id, row.status(), NoticeStatus.SUCCEEDED,
            "only a notice that was sent can be confirmed");
      };
      if (done != null) {
        return done;
      }
      if (System.nanoTime() > deadline) {
        throw new HeraldException("notice " + id + " kept changing; try again");
      }
    }
  }

  private Notice applyConfirm(NoticeRow row) {
    Change c = Transitions.move(row, NoticeStatus.SUCCEEDED, null, clock.instant());
    if (!store.apply(List.of(c)).getFirst().written()) {
      return null;
    }
    listeners.onFinished(c.next().notice());
    return c.next().notice();
  }

  /** A DEAD notice whose last attempt delivered it: it died waiting for its confirmation. */
  private boolean diedUnconfirmed(NoticeRow row) {
    List<dev.herald.Attempt> attempts = store.attempts(row.id());
    if (attempts.isEmpty()) {
      return false;
    }
    dev.herald.DeliveryResult.Outcome last = attempts.getLast().outcome();
    return last == dev.herald.DeliveryResult.Outcome.DELIVERED || last == dev.herald.DeliveryResult.Outcome.AWAIT_CONFIRM;
  }

  /**
   * Confirms an IN_FLIGHT notice; null if it moved meanwhile and must be read again. One held here,
   * sent before and not being sent now, is confirmed at once; otherwise the confirmation waits for the
   * notice's next recorded outcome. (A notice held here and never sent by this node may be in its
   * first attempt elsewhere, by a node that lost it: the receiver may be confirming that attempt.)
   */
  private Notice confirmInFlight(NoticeRow row) {
    UUID id = row.id();
    if (held.isMine(row.owner()) && row.attemptsInBudget() > 0) {
      Holdings.Taken t = held.take(id);
      if (t.result() == Holdings.TakeBack.TAKEN) { // held here, not started: confirm it now
        boolean written = false;
        try {
          Change c = Transitions.move(row, NoticeStatus.SUCCEEDED, null, clock.instant());
          written = store.apply(List.of(c)).getFirst().written();
          if (written) {
            listeners.onFinished(c.next().notice());
            return c.next().notice();
          }
          return null;
        } finally {
          if (!written) {
            releaseTaken(t.notice());
          } else {
            held.settled(t.notice(), true);
          }
        }
      }
    }
    // Being delivered (or held elsewhere): the next recorded outcome consumes it.
    return store.recordEarlyConfirmation(id, clock.instant()) ? row.notice() : null;
  }

  @Override
  public int recoverDead(String definition, Instant from, Instant to) {
    definitions.require(definition, "definition");
    if (from == null || to == null || !from.isBefore(to)) {
      throw new dev.herald.InvalidInputException("to", "the window needs from < to, was [" + from + ", " + to + ")");
    }
    int total = 0;
    while (true) {
      List<NoticeRow> dead = store.findFinished(definition, NoticeStatus.DEAD, from, to, 500);
      if (dead.isEmpty()) {
        break;
      }
      Instant now = clock.instant();
      List<Change> changes = dead.stream().map(r -> Transitions.resend(r, now)).toList();
      int applied = (int) store.apply(changes).stream().filter(dev.herald.spi.Applied::written).count();
      total += applied;
      if (applied == 0) {
        break; // all changed under us; do not spin
      }
    }
    log.info("Herald: re-queued {} dead notice(s) of {} that died in [{}, {})", total, definition, from, to);
    if (held.running()) {
      held.wakePoller();
    }
    return total;
  }

  private interface Decision {
    Change decide(NoticeRow current);
  }

  /**
   * Reads, secures, decides and applies optimistically; reads again if the notice moved meanwhile or
   * must be waited for. A notice taken out of memory whose change did not apply is released, never
   * left leased by a live node.
   */
  private Notice change(UUID id, NoticeStatus target, Decision decision) {
    long deadline = System.nanoTime() + held.patience().toNanos();
    boolean askedToLetGo = false;
    while (true) {
      NoticeRow row = store.find(id).orElseThrow(() -> new NoticeNotFoundException(id));
      if (target != null && !row.status().canMoveTo(target)) {
        throw new IllegalTransitionException(id, row.status(), target, null);
      }
      Hold hold = secure(row, askedToLetGo);
      if (hold.kind() == Kind.WAIT) {
        askedToLetGo |= row.owner() != null && !held.isMine(row.owner());
        if (System.nanoTime() > deadline) {
          throw new IllegalTransitionException(id, row.status(), target != null ? target : row.status(),
              "node " + row.owner() + " is delivering it or did not let go within " + held.patience().toMillis()
                  + " ms; try again");
        }
        pause();
        continue;
      }
      boolean applied = false;
      try {
        Change change = decision.decide(row);
        applied = store.apply(List.of(change)).getFirst().written();
        if (applied) {
          Notice next = change.next().notice();
          if (next.status().isFinished()) {
            listeners.onFinished(next);
          }
          return next;
        }
      } finally {
        if (hold.taken() != null) {
          if (applied) {
            held.settled(hold.taken(), true);
          } else {
            releaseTaken(hold.taken());
          }
        }
      }
      if (System.nanoTime() > deadline) {
        throw new HeraldException("notice " + id + " kept changing; try again");
      }
    }
  }

  /** Makes sure no attempt of this version can start once the change applies. */
  private Hold secure(NoticeRow row, boolean askedToLetGo) {
    String owner = row.owner();
    if (row.status() != NoticeStatus.IN_FLIGHT || owner == null || owner.endsWith(Ownership.PROVISIONAL)) {
      // Unheld, or pre-claimed and not yet adopted: adoption and claims are version-checked like the change.
      return Hold.FREE;
    }
    if (held.isMine(owner)) { // any incarnation of this node, current or retired: its memory decides
      Holdings.Taken t = held.take(row.id());
      return switch (t.result()) {
        case TAKEN -> new Hold(Kind.TAKEN, t.notice());
        case BUSY -> Hold.WAIT;
        case NOT_HELD -> {
          held.supersede(row.id(), row.version()); // a claim of it still on its way into memory is dropped
          yield Hold.FREE;
        }
      };
    }
    if (!held.ownerAlive(owner)) {
      return Hold.FREE; // a dead node fenced itself: it starts nothing more
    }
    if (!askedToLetGo) {
      store.requestRevocation(row.id(), owner, clock.instant());
    }
    return Hold.WAIT;
  }

  /**
   * Gives back the row of a notice taken out of memory whose change did not apply (or whose answer
   * was lost). If even that fails, the row may stay held here by no memory: it is reported suspect,
   * and reconciliation releases it once the database answers.
   */
  private void releaseTaken(HeldNotice h) {
    if (Trace.on()) {
      Trace.log("operator releases {} v{} of {}", h.id(), h.row.version(), h.owner());
    }
    boolean written = false;
    try {
      store.apply(List.of(Transitions.release(h.row, clock.instant())));
      written = true; // released, or stale: changed by the action itself after all, so no longer held here
    } catch (RuntimeException e) {
      listeners.onEngineError("release notice " + h.id(), e);
    } finally {
      held.settled(h, written);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HeraldException("interrupted while waiting for a notice to be let go", e);
    }
  }
}
