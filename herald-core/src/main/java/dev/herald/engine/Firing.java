package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.HeraldException;
import dev.herald.spi.AttemptObserver;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The timer loop: fires each held notice at its due time, within the delivery slots and only while
 * this node's liveness allows, and hands it to its channel (or, in {@link #runOne}, delivers it on
 * the calling thread); the outcome goes to {@link Outcomes}.
 */
final class Firing extends EnginePart {
  private final Outcomes outcomes;

  Firing(EngineCore core, Outcomes outcomes) {
    super(core);
    this.outcomes = outcomes;
  }

  void timerLoop() {
    while (isRunning()) {
      try {
        timer.awaitDue(clock::millis, 1_000);
        List<HeldNotice> due = timer.pollDue(clock.millis(), 1_000);
        for (int i = 0; i < due.size(); i++) {
          try {
            fire(due.get(i));
          } catch (Throwable t) { // the ones not yet fired go back, never left out of the timer and held
            for (int j = i; j < due.size(); j++) {
              holdings.putBack(due.get(j));
            }
            throw t;
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // an Error too: a dead timer thread would stop every delivery silently
        listeners.onEngineError("fire", e);
        log.error("Herald node {}: timer step failed", settings.nodeId(), e);
        pause(10);
      }
    }
  }

  /** Waits for a delivery slot and starts the attempt, unless the notice was taken back meanwhile. */
  private void fire(HeldNotice h) throws InterruptedException {
    if (!isRunning() || !acquireDeliverySlot()) {
      holdings.putBack(h); // released by close()
      return;
    }
    boolean started = false;
    try {
      awaitWriterCatchUp();
      long now = clock.millis();
      if (!liveness.mayStart(h.owner(), now)) {
        lostOrWait(h, now);
      } else if (holdings.begin(h)) {
        started = true;
        dispatch(h).whenComplete((r, e) -> deliverySlots.release());
      }
    } finally {
      if (!started) {
        deliverySlots.release();
      }
    }
  }

  /**
   * A notice this node may not start now: held under a lapsed incarnation (other nodes may have it:
   * let it go without a write), or this node's last heartbeat is too old to be sure nobody else
   * does (wait for the next beat, which either renews the claim or finds it lapsed).
   */
  private void lostOrWait(HeldNotice h, long now) {
    if (!h.owner().equals(liveness.token())) {
      if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.GONE)) {
        holdings.done(h);
      }
      return;
    }
    HeldNotice later = new HeldNotice(h.row, h.definition, now + 50);
    if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.RECORDING)) {
      holdings.reschedule(h, later);
    }
  }

  /** Waits for a free delivery slot while running; false if the engine stops meanwhile. */
  private boolean acquireDeliverySlot() throws InterruptedException {
    while (isRunning()) {
      if (deliverySlots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Holds new attempts while more than a batch of outcomes waits to be written. An attempt whose
   * outcome is not yet committed is delivered again after a crash, so this bounds the repeats a
   * crash can cause to about {@code maxConcurrentDeliveries} plus three batches (two being written, one waiting).
   */
  private void awaitWriterCatchUp() {
    while (writer.backlog() > settings.writeBatch() && isRunning()) {
      java.util.concurrent.locks.LockSupport.parkNanos(200_000);
    }
  }

  /** Starts one attempt; the returned future completes when its outcome is queued for writing. */
  private CompletableFuture<Void> dispatch(HeldNotice h) {
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    CompletableFuture<DeliveryResult> attempt;
    AttemptObserver.Observed observed = null;
    if (confirmationOverdue(h)) {
      attempt = CompletableFuture.completedFuture(null); // finish() turns it into DEAD without a delivery
    } else {
      try {
        Channel channel = channelOf(h);
        if (channel == null) {
          attempt = CompletableFuture.completedFuture(noChannel(h));
        } else {
          observed = observe(h);
          attempt = channel.deliver(delivery(h, observed)).toCompletableFuture();
        }
      } catch (Throwable e) {
        attempt = CompletableFuture.failedFuture(e);
      }
    }
    AttemptObserver.Observed watching = observed;
    return attempt
        .orTimeout(settings.deliveryTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((r, e) -> {
          DeliveryResult result = resultOf(r, e);
          ended(watching, result, e);
          outcomes.finish(h, result, started, Duration.ofNanos(System.nanoTime() - t0));
          return null;
        });
  }

  /** The notice's channel; null when there is none to call (definition deleted, channel missing). */
  private Channel channelOf(HeldNotice h) {
    return h.definition == null ? null : channels.get(h.definition.channel());
  }

  /** The result of an attempt that reached no channel. */
  private DeliveryResult noChannel(HeldNotice h) {
    if (h.definition == null) {
      return DeliveryResult.fail("definition '" + h.row.notice().definition() + "' no longer exists");
    }
    return DeliveryResult.retry("no channel named '" + h.definition.channel() + "' on node " + settings.nodeId());
  }

  private static Delivery delivery(HeldNotice h, AttemptObserver.Observed observed) {
    return new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1,
        observed != null ? observed.traceparent() : h.row.notice().traceparent());
  }

  /** Starts watching the attempt; an observer that fails leaves it unobserved, never undelivered. */
  private AttemptObserver.Observed observe(HeldNotice h) {
    if (core.attemptObserver == AttemptObserver.NONE) {
      return null; // nothing to watch: the channel sends the notice's own traceparent
    }
    try {
      return core.attemptObserver.start(new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1));
    } catch (RuntimeException e) {
      listeners.onEngineError("observe attempt", e);
      return null;
    }
  }

  private void ended(AttemptObserver.Observed observed, DeliveryResult result, Throwable error) {
    if (observed == null) {
      return;
    }
    try {
      Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
          ? error.getCause() : error;
      observed.end(result, cause);
    } catch (RuntimeException e) {
      listeners.onEngineError("observe attempt", e);
    }
  }

  private DeliveryResult resultOf(DeliveryResult r, Throwable e) {
    if (e == null) {
      return r != null ? r : DeliveryResult.retry("channel returned no result");
    }
    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof TimeoutException) {
      return DeliveryResult.retry("attempt timed out after " + settings.deliveryTimeout().toMillis() + " ms");
    }
    return DeliveryResult.retry(cause.getClass().getName() + ": " + cause.getMessage());
  }

  OutcomeWriter.Pending runOne(HeldNotice h) {
    holdings.begin(h);
    if (h.definition == null || confirmationOverdue(h)) {
      holdings.recording(h);
      return outcomes.pendingOutcome(h, DeliveryResult.fail("definition '" + h.row.notice().definition() + "' no longer exists"),
          clock.instant(), Duration.ZERO);
    }
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    Channel channel = channels.get(h.definition.channel());
    DeliveryResult result;
    if (channel == null) {
      result = DeliveryResult.retry("no channel named '" + h.definition.channel() + "'");
    } else {
      AttemptObserver.Observed observed = observe(h);
      Throwable error = null;
      try {
        result = channel.deliver(delivery(h, observed))
            .toCompletableFuture()
            .get(settings.deliveryTimeout().toMillis(), TimeUnit.MILLISECONDS);
        result = resultOf(result, null);
      } catch (ExecutionException e) {
        error = e.getCause();
        result = resultOf(null, e.getCause());
      } catch (TimeoutException | RuntimeException e) {
        error = e;
        result = resultOf(null, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ended(observed, DeliveryResult.retry("interrupted"), e);
        throw new HeraldException("interrupted while delivering notice " + h.id(), e);
      }
      ended(observed, result, error);
    }
    holdings.recording(h);
    circuits.record(SyncFirst.receiverOf(h.definition, h.row.notice().target()), result);
    return outcomes.pendingOutcome(h, result, started, Duration.ofNanos(System.nanoTime() - t0));
  }
}
