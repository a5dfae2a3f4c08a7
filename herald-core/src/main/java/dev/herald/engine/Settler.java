package dev.herald.engine;

import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Applied;
import dev.herald.spi.Change;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last stage, settle: once the recorder knows what became of an outcome, memory follows the
 * database (a kept retry back in the timer, or the notice let go), then listeners and waiters are
 * told, and the poller is woken for the next notice of an ordered line. Memory comes first, so that a
 * listener that throws or blocks can leave nothing behind, nor undo an operator's cancel.
 */
final class Settler implements Recorder.Settler {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final String nodeId;
  private final Clock clock;
  private final Ownership ownership;
  private final Listeners listeners;
  private final OutcomeWaiters waiters;
  private final PollSignal poll;
  private final BooleanSupplier running;
  /** Set once wired: a kept retry met at shutdown is given back through it. */
  private volatile Recorder recorder;

  Settler(String nodeId, Clock clock, Ownership ownership, Listeners listeners, OutcomeWaiters waiters, PollSignal poll,
      BooleanSupplier running) {
    this.nodeId = nodeId;
    this.clock = clock;
    this.ownership = ownership;
    this.listeners = listeners;
    this.waiters = waiters;
    this.poll = poll;
    this.running = running;
  }

  void recordThrough(Recorder r) {
    this.recorder = r;
  }

  @Override
  public void recorded(Recorder.Pending p, Applied applied) {
    Change c = p.change();
    settleMemory(p.held(), c, applied);
    if (!applied.written()) {
      if (c.attempt() != null) {
        log.info("Herald node {}: outcome of notice {} attempt {} not recorded: the notice changed meanwhile",
            nodeId, c.expected().id(), c.attempt().number());
        listeners.onStaleOutcome(c.expected().notice(), c.attempt());
      }
      return;
    }
    Notice next = (applied == Applied.CONFIRMED ? c.ifConfirmed() : c.next()).notice();
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
    if (p.alert() != null && applied == Applied.APPLIED) {
      listeners.onAlert(p.alert());
    }
  }

  private void settleMemory(HeldNotice h, Change c, Applied applied) {
    if (h == null) {
      return;
    }
    boolean kept = applied == Applied.APPLIED && c.next().status() == NoticeStatus.IN_FLIGHT
        && Objects.equals(h.owner(), c.next().owner());
    if (kept && running.getAsBoolean() && ownership.keepsUnder(h.owner())) {
      ownership.holdings().reschedule(h, new HeldNotice(c.next(), h.definition));
    } else if (kept) {
      // stopping, or its incarnation retired meanwhile: give the kept retry back rather than leave it held
      HeldNotice next = new HeldNotice(c.next(), h.definition);
      next.moveTo(HeldNotice.Stage.RECORDING);
      ownership.holdings().replace(h, next);
      recorder.submit(new Recorder.Pending(next, Transitions.release(c.next(), clock.instant()), null));
    } else {
      ownership.holdings().done(h);
      if (applied == Applied.STALE) {
        // Changed by someone else (then nothing to do), or refused for good: then its row is still
        // held here by nobody's memory, and reconciliation gives it back.
        ownership.suspect(h.id());
      }
    }
  }

  /** An ordered notice's outcome may free the next one of its key: look for it now, not at the next poll. */
  @Override
  public void batchRecorded(List<Recorder.Pending> written) {
    for (Recorder.Pending p : written) {
      NoticeDefinition def = p.held() == null ? null : p.held().definition;
      if (def != null && def.ordering().ordered() && running.getAsBoolean()) {
        poll.request();
        return;
      }
    }
  }
}
