package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.EngineSettings;
import dev.herald.spi.AttemptObserver;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second stage, fire: the timer loop takes each held notice at its due time, within the
 * delivery slots and only while {@link Ownership} allows it to start, and hands it to its channel;
 * the result goes to the {@link Judge}, and the judged outcome to the {@link Recorder}. {@link
 * #fireDueNow} drives the same attempt on the caller's thread (manual driving).
 */
final class Firing {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final EngineSettings settings;
  private final Clock clock;
  private final Ownership ownership;
  private final ChannelRegistry channels;
  private final AttemptObserver observer;
  private final Judge judge;
  private final Recorder recorder;
  private final Listeners listeners;
  private final BooleanSupplier running;
  /** Attempts running at once on this node: a bound on memory and threads, not on any one receiver. */
  private final Semaphore slots;
  /** Attempts running at once per receiver: a slow receiver waits in its own line. */
  private final ReceiverLanes lanes;

  Firing(EngineSettings settings, Clock clock, Ownership ownership, ChannelRegistry channels, AttemptObserver observer,
      Judge judge, Recorder recorder, Listeners listeners, BooleanSupplier running) {
    this.settings = settings;
    this.clock = clock;
    this.ownership = ownership;
    this.channels = channels;
    this.observer = observer;
    this.judge = judge;
    this.recorder = recorder;
    this.listeners = listeners;
    this.running = running;
    this.slots = new Semaphore(settings.maxConcurrentDeliveries());
    this.lanes = new ReceiverLanes(settings.maxConcurrentPerReceiver());
  }

  /** The timer thread's loop, until the engine stops. */
  void run() {
    DueTimer timer = ownership.timer();
    while (running.getAsBoolean()) {
      try {
        timer.awaitDue(clock::millis, 1_000);
        List<HeldNotice> due = timer.pollDue(clock.millis(), 1_000);
        for (int i = 0; i < due.size(); i++) {
          try {
            fire(due.get(i));
          } catch (Throwable t) { // the ones not yet fired go back, never left out of the timer and held
            for (int j = i; j < due.size(); j++) {
              ownership.holdings().putBack(due.get(j));
            }
            throw t;
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // an Error too: a dead timer thread would stop every delivery silently
        listeners.onEngineError("fire", e);
        log.error("Herald node {}: timer step failed", settings.nodeId(), e);
        LockSupport.parkNanos(10_000_000L);
      }
    }
  }

  /** Attempts running now. */
  int running() {
    return settings.maxConcurrentDeliveries() - slots.availablePermits();
  }

  /**
   * Waits for a delivery slot and starts the attempt, unless the notice was taken meanwhile or its
   * receiver is at its limit (then it waits in the receiver's line, and this thread goes on).
   */
  private void fire(HeldNotice h) throws InterruptedException {
    if (!running.getAsBoolean() || !acquireSlot()) {
      ownership.holdings().putBack(h); // released by close()
      return;
    }
    boolean started = false;
    try {
      awaitRecorderCatchUp();
      long now = clock.millis();
      if (!ownership.mayStart(h, now)) {
        notNow(h, now);
        return;
      }
      String receiver = receiverOf(h);
      if (!lanes.enterOrWait(receiver, channelLimit(h), h)) {
        return; // back to the timer when a place of its receiver frees
      }
      if (!ownership.holdings().begin(h)) {
        nextInLine(receiver); // taken meanwhile: its place goes to the next
        return;
      }
      started = true;
      attempt(h).whenComplete((pending, e) -> {
        slots.release();
        nextInLine(receiver);
        if (pending != null) {
          recorder.submit(pending);
        }
      });
    } finally {
      if (!started) {
        slots.release();
      }
    }
  }

  /** The receiver a notice's attempt goes to, as the circuits know it; one key for notices without a definition. */
  private static String receiverOf(HeldNotice h) {
    return h.definition == null ? "" : SyncFirst.receiverOf(h.definition, h.row.notice().target());
  }

  /** What the notice's channel takes at once per receiver; the engine's own limit where it sets none. */
  private int channelLimit(HeldNotice h) {
    Channel channel = h.definition == null ? null : channels.get(h.definition.channel());
    return channel == null ? Channel.NO_LIMIT_OF_ITS_OWN : channel.maxConcurrentPerReceiver(h.definition);
  }

  /** A place of {@code receiver} is free: the next notice waiting for one goes back to the timer, due at once. */
  private void nextInLine(String receiver) {
    HeldNotice next = lanes.leave(receiver);
    if (next != null) {
      ownership.holdings().putBack(next);
    }
  }

  /** Notices waiting for a place of their receiver, taken out of the lines (shutdown: they are released). */
  List<HeldNotice> drainLines() {
    List<HeldNotice> out = new ArrayList<>();
    for (HeldNotice h : lanes.drain()) {
      if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.TAKEN)) {
        out.add(h);
      }
    }
    return out;
  }

  /**
   * A notice that may not start now: held under a retired incarnation (let it go: its row is released,
   * version-checked, as another node may hold it already), or this node's last heartbeat is too old
   * to be sure nobody else does (wait for the next beat, which renews the fence or retires the token).
   */
  private void notNow(HeldNotice h, long now) {
    if (!ownership.keepsUnder(h.owner())) {
      if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.TAKEN)) {
        ownership.letGo(List.of(h)); // released by the poller: this thread never waits for the database
      }
      return;
    }
    HeldNotice later = new HeldNotice(h.row, h.definition, now + 50);
    if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.RECORDING)) {
      ownership.holdings().reschedule(h, later);
    }
  }

  /** Waits for a free delivery slot while running; false if the engine stops meanwhile. */
  private boolean acquireSlot() throws InterruptedException {
    while (running.getAsBoolean()) {
      if (slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
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
  private void awaitRecorderCatchUp() {
    while (recorder.backlog() > settings.writeBatch() && running.getAsBoolean()) {
      LockSupport.parkNanos(200_000);
    }
  }

  /**
   * Manual driving: one attempt of every notice due by {@code nowMillis} not yet in {@code
   * attempted}, one after another on the caller's thread, through the same {@link #attempt}; a notice
   * attempted already (a retry due at once) is let go until the next call. Returns the outcomes,
   * unrecorded; adds what it attempted to {@code attempted}.
   */
  List<Recorder.Pending> fireDueNow(long nowMillis, java.util.Set<java.util.UUID> attempted) {
    List<Recorder.Pending> out = new ArrayList<>();
    for (HeldNotice h : ownership.timer().pollDue(nowMillis, Integer.MAX_VALUE)) {
      if (!attempted.add(h.id())) {
        if (h.move(HeldNotice.Stage.WAITING, HeldNotice.Stage.RECORDING)) {
          out.add(new Recorder.Pending(h, Transitions.release(h.row, clock.instant()), null));
        }
      } else if (ownership.holdings().begin(h)) {
        Recorder.Pending p = attempt(h).join();
        if (p != null) {
          out.add(p);
        }
      }
    }
    return out;
  }

  /**
   * Starts one attempt of a notice that has begun ({@link HeldNotice.Stage#DELIVERING}); completes,
   * never exceptionally, with its judged outcome (null: a deferral kept in memory).
   */
  CompletableFuture<Recorder.Pending> attempt(HeldNotice h) {
    if (Trace.on()) {
      Trace.log("start {} v{} under {}", h.id(), h.row.version(), h.owner());
    }
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    CompletableFuture<DeliveryResult> attempt;
    AttemptObserver.Observed observed = null;
    if (Judge.confirmationOverdue(h)) {
      attempt = CompletableFuture.completedFuture(null); // judged DEAD without a delivery
    } else {
      try {
        Channel channel = h.definition == null ? null : channels.get(h.definition.channel());
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
          return judge.judge(h, result, started, Duration.ofNanos(System.nanoTime() - t0));
        });
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
    if (observer == AttemptObserver.NONE) {
      return null; // nothing to watch: the channel sends the notice's own traceparent
    }
    try {
      return observer.start(new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1));
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
      observed.end(result, unwrap(error));
    } catch (RuntimeException e) {
      listeners.onEngineError("observe attempt", e);
    }
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private DeliveryResult resultOf(DeliveryResult r, Throwable e) {
    if (e == null) {
      return r != null ? r : DeliveryResult.retry("channel returned no result");
    }
    Throwable cause = unwrap(e);
    if (cause instanceof TimeoutException) {
      return DeliveryResult.retry("attempt timed out after " + settings.deliveryTimeout().toMillis() + " ms");
    }
    return DeliveryResult.retry(cause.getClass().getName() + ": " + cause.getMessage());
  }
}
