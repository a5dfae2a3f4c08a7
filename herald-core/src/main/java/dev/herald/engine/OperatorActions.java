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
 * applies one optimistic change (again, if the notice moved meanwhile). A notice this node holds in
 * its timer is taken out first, so that it is not fired after being cancelled or changed.
 */
final class OperatorActions implements NoticeOperations {
  private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

  /** What the actions need from the engine that holds notices in memory. */
  interface HeldNotices {
    /** Takes the notice out of this node's timer; false if it is being delivered or held by a live lease elsewhere. */
    boolean takeBack(NoticeRow row);

    void wakePoller();

    boolean running();
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
    Notice n = change(id, NoticeStatus.PENDING, row -> {
      if (row.status() == NoticeStatus.IN_FLIGHT && !held.takeBack(row)) {
        throw new IllegalTransitionException(id, NoticeStatus.IN_FLIGHT, NoticeStatus.PENDING,
            "node " + row.owner() + " is delivering it now");
      }
      return Transitions.resend(row, clock.instant());
    });
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
    return change(id, null, row -> {
      NoticeStatus s = row.status();
      boolean waiting = s == NoticeStatus.PENDING || s == NoticeStatus.FAILED;
      boolean heldUndelivered = s == NoticeStatus.IN_FLIGHT
          && !(row.attemptsInBudget() > 0 && row.notice().lastError() == null); // not a confirm redelivery
      if (!waiting && !heldUndelivered) {
        throw new IllegalTransitionException(id, s, s, "only a notice not yet delivered can be edited");
      }
      if (heldUndelivered && !held.takeBack(row)) {
        throw new IllegalTransitionException(id, s, s, "node " + row.owner() + " is delivering it now");
      }
      return Transitions.edit(row, intake.checkEdit(row.notice().definition(), edit), clock.instant());
    });
  }

  @Override
  public Notice cancel(UUID id) {
    return change(id, NoticeStatus.CANCELLED, row -> {
      held.takeBack(row);
      return Transitions.move(row, NoticeStatus.CANCELLED, null, clock.instant());
    });
  }

  @Override
  public Notice confirm(UUID id) {
    return change(id, NoticeStatus.SUCCEEDED, row -> {
      boolean awaiting = row.status() == NoticeStatus.AWAITING_CONFIRM;
      boolean redeliveryPending = row.status() == NoticeStatus.IN_FLIGHT
          && row.notice().lastError() == null
          && row.attemptsInBudget() > 0
          && definitions.find(row.notice().definition()).map(NoticeDefinition::confirmRequired).orElse(false);
      if (!awaiting && !redeliveryPending) {
        throw new IllegalTransitionException(id, row.status(), NoticeStatus.SUCCEEDED,
            "only a delivered notice awaiting confirmation can be confirmed");
      }
      held.takeBack(row);
      return Transitions.move(row, NoticeStatus.SUCCEEDED, null, clock.instant());
    });
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
      int applied = (int) store.apply(changes).stream().filter(b -> b).count();
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

  /** Reads, decides and applies optimistically; re-reads and decides again if the notice moved meanwhile. */
  private Notice change(UUID id, NoticeStatus target, Decision decision) {
    for (int tries = 0; tries < 5; tries++) {
      NoticeRow row = store.find(id).orElseThrow(() -> new NoticeNotFoundException(id));
      if (target != null && !row.status().canMoveTo(target)) {
        throw new IllegalTransitionException(id, row.status(), target, null);
      }
      Change change = decision.decide(row);
      if (store.apply(List.of(change)).getFirst()) {
        Notice next = change.next().notice();
        if (next.status().isFinished()) {
          listeners.onFinished(next);
        }
        return next;
      }
    }
    throw new HeraldException("notice " + id + " kept changing; try again");
  }
}
