package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Change;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What follows an attempt: its outcome judged ({@link Transitions}) and queued for the writer, a
 * deferral kept in memory, and once the writer has committed it ({@link OutcomeWriter.Callback}),
 * memory settled, listeners told, and confirmations that arrived early applied.
 */
final class Outcomes extends EnginePart implements OutcomeWriter.Callback {
  private final OperatorActions operations;

  Outcomes(EngineCore core, OperatorActions operations) {
    super(core);
    this.operations = operations;
  }

  /**
   * Queues the attempt's outcome for writing. Never throws and never leaves the notice behind: if
   * the outcome cannot even be computed, the notice is released as it was.
   */
  void finish(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    holdings.recording(h);
    try {
      if (h.definition != null && !confirmationOverdue(h)) {
        circuits.record(SyncFirst.receiverOf(h.definition, h.row.notice().target()), result);
      }
      if (keepDeferralInMemory(h, result)) {
        return;
      }
      writer.submit(pendingOutcome(h, result, started, took));
    } catch (Throwable t) {
      listeners.onEngineError("judge outcome of notice " + h.id(), t);
      log.error("Herald node {}: cannot judge the outcome of notice {}; releasing it", settings.nodeId(), h.id(), t);
      writer.submit(new OutcomeWriter.Pending(h, Transitions.release(h.row, clock.instant()), null));
    }
  }

  /**
   * A deferral (endpoint busy, circuit open) due within the look-ahead stays in memory as it is:
   * no row is rewritten while a notice waits for its receiver, so database writes grow with
   * deliveries, not with the backlog.
   */
  private boolean keepDeferralInMemory(HeldNotice h, DeliveryResult result) {
    if (result.outcome() != DeliveryResult.Outcome.DEFER || !isRunning() || h.definition == null) {
      return false;
    }
    long due = clock.millis() + Transitions.bounded(result.retryAfter()).toMillis();
    if (due > clock.millis() + settings.lookAhead().toMillis()) {
      return false;
    }
    holdings.reschedule(h, new HeldNotice(h.row, h.definition, due));
    return true;
  }

  OutcomeWriter.Pending pendingOutcome(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    Instant now = clock.instant();
    NoticeDefinition def = h.definition != null ? h.definition : orphanDefinition(h);
    if (confirmationOverdue(h)) {
      Transitions.AfterAttempt dead = Transitions.unconfirmed(h.row, def, now);
      return new OutcomeWriter.Pending(h, dead.change(), dead.alert());
    }
    Instant keepUntil = isRunning() ? now.plus(settings.lookAhead()) : null;
    Transitions.AfterAttempt after = Transitions.afterAttempt(
        new Transitions.AttemptFacts(h.row, def, result, started, took, settings.nodeId()),
        now, keepUntil, now.plus(settings.nodeTimeout()), random);
    return new OutcomeWriter.Pending(h, after.change(), after.alert());
  }

  private static NoticeDefinition orphanDefinition(HeldNotice h) {
    return NoticeDefinition.builder(h.row.notice().definition()).handler("-").maxAttempts(1).build();
  }

  /**
   * Called by the writer once a change is committed, or found stale. Memory is settled first (a
   * kept retry back in the timer, or the notice let go), so that a listener that throws or blocks
   * cannot leave it behind, nor an operator's cancel meanwhile be undone.
   */
  @Override
  public void recorded(OutcomeWriter.Pending p, boolean applied) {
    Change c = p.change();
    HeldNotice h = p.held();
    boolean kept = applied && c.next().status() == NoticeStatus.IN_FLIGHT && h != null
        && java.util.Objects.equals(h.owner(), c.next().owner());
    if (h != null) {
      if (kept && isRunning()) {
        holdings.reschedule(h, new HeldNotice(c.next(), h.definition));
      } else if (kept) {
        // stopping: give the kept retry back rather than leave it held until the node timeout
        HeldNotice next = new HeldNotice(c.next(), h.definition);
        next.moveTo(HeldNotice.Stage.RECORDING);
        holdings.replace(h, next);
        writer.submit(new OutcomeWriter.Pending(next, Transitions.release(c.next(), clock.instant()), null));
      } else {
        holdings.done(h);
      }
    }
    if (!applied) {
      if (c.attempt() != null) {
        log.info("Herald node {}: outcome of notice {} attempt {} not recorded: the notice changed meanwhile",
            settings.nodeId(), c.expected().id(), c.attempt().number());
        listeners.onStaleOutcome(c.expected().notice(), c.attempt());
      }
      return;
    }
    Notice next = c.next().notice();
    if (c.attempt() != null) {
      listeners.onAttempt(next, c.attempt());
      waiters.recorded(next);
    }
    if (next.status().isFinished()) {
      listeners.onFinished(next);
      if (c.attempt() == null) {
        waiters.recorded(next);
      }
    }
    if (p.alert() != null) {
      listeners.onAlert(p.alert());
    }
  }

  /** An ordered notice's outcome may free the next one of its key: look for it now, not at the next poll. */
  private void wakeForNextInLine(List<OutcomeWriter.Pending> applied) {
    for (OutcomeWriter.Pending p : applied) {
      NoticeDefinition def = p.held().definition;
      if (def != null && def.ordering().ordered() && isRunning()) {
        requestPoll();
        return;
      }
    }
  }

  /**
   * Confirmations that arrived while their notices were being delivered: applied as soon as those
   * deliveries are recorded as awaiting confirmation (or, for a confirm redelivery whose attempts
   * ran out meanwhile, as dead for the want of one).
   */
  @Override
  public void batchRecorded(List<OutcomeWriter.Pending> applied) {
    wakeForNextInLine(applied);
    List<UUID> awaiting = new ArrayList<>();
    for (OutcomeWriter.Pending p : applied) {
      NoticeStatus next = p.change().next().status();
      boolean unconfirmedDeath = next == NoticeStatus.DEAD && Transitions.wasDelivered(p.change().expected());
      if (next == NoticeStatus.AWAITING_CONFIRM || unconfirmedDeath) {
        awaiting.add(p.change().next().id());
      }
    }
    if (awaiting.isEmpty()) {
      return;
    }
    for (UUID id : store.takeEarlyConfirmations(awaiting)) {
      try {
        operations.confirm(id);
      } catch (dev.herald.IllegalTransitionException e) {
        log.debug("Herald node {}: early confirmation of notice {} no longer applies: {}", settings.nodeId(), id,
            e.getMessage()); // resent, cancelled or failed meanwhile
      } catch (RuntimeException e) {
        listeners.onEngineError("apply the early confirmation of notice " + id, e);
      }
    }
  }
}
