package dev.herald.engine;

import dev.herald.HeraldListener;
import dev.herald.spi.Change;
import dev.herald.spi.Channel;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the parts of one {@link DeliveryEngine} share: its collaborators, built here from the
 * settings, its lifecycle state, the backlog count and the poller's wake-up signal, and the few
 * steps more than one part takes (wake the poller, give notices back, start a new incarnation).
 */
final class EngineCore {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  enum State { NEW, RUNNING, STOPPING, STOPPED }

  final EngineSettings settings;
  final NoticeStore store;
  final Clock clock;
  final RandomGenerator random;
  final Listeners listeners;
  final ChannelRegistry channels;
  final DefinitionCache definitions;
  final Intake intake;
  final DueTimer timer = new DueTimer();
  /** Room for held notices: {@link EngineSettings#maxHeld()} permits. */
  final Semaphore room;
  final Holdings holdings;
  final Liveness liveness;
  final Semaphore deliverySlots;
  final OutcomeWriter writer;
  final ReceiverCircuits circuits;
  final OutcomeWaiters waiters;
  final dev.herald.spi.AttemptObserver attemptObserver;

  volatile State state = State.NEW;
  /** Notices due and undelivered, as last counted (only when {@link EngineSettings#maxBacklog()} is set). */
  volatile int dueBacklog;
  final Object pollSignal = new Object();
  volatile boolean pollRequested;

  EngineCore(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channels,
      List<HeraldListener> listeners, RandomGenerator random, OutcomeWriter.Callback recorded, Tracing tracing) {
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    this.random = random;
    this.listeners = new Listeners(listeners);
    this.channels = new ChannelRegistry(channels);
    this.definitions = new DefinitionCache(store, clock, this.channels);
    this.intake = new Intake(clock, definitions, settings.maxPayloadBytes(), tracing.traceContext());
    this.attemptObserver = tracing.observer();
    this.room = new Semaphore(settings.maxHeld());
    this.holdings = new Holdings(timer, room);
    this.liveness = new Liveness(store, clock, settings.nodeId(), settings.nodeTimeout());
    this.deliverySlots = new Semaphore(settings.maxConcurrentDeliveries());
    this.writer = new OutcomeWriter(store, settings.writeBatch(), recorded, this.listeners);
    this.circuits = new ReceiverCircuits(clock, settings.circuitFailureThreshold(), settings.circuitOpenFor());
    this.waiters = new OutcomeWaiters(clock);
  }

  boolean isRunning() {
    return state == State.RUNNING;
  }

  void requestPoll() {
    synchronized (pollSignal) {
      pollRequested = true;
      pollSignal.notifyAll();
    }
  }

  /** Writes releases directly (the writer may be gone); a failure leaves them to the node timeout. */
  void releaseQuietly(List<Change> releases, String what) {
    if (releases.isEmpty()) {
      return;
    }
    try {
      store.apply(releases);
    } catch (RuntimeException e) {
      listeners.onEngineError(what, e);
      log.warn("Herald node {}: cannot {} ({}); other nodes take them over after the node timeout",
          settings.nodeId(), what, e.getMessage());
      // Rows left under a token that keeps beating would never be claimed again, by any node: give
      // the token up, so that they are taken over (this node's next claims included) once it lapses.
      abandonIncarnation(what);
    }
  }

  /**
   * A claim or adoption failed, and may have committed anyway: rows under the current token could
   * be held by no one. Continue under a new token; the old one's rows are taken over once its
   * heartbeat is stale, by any node including this one.
   */
  void abandonIncarnation(String step) {
    String old = liveness.token();
    liveness.abandon();
    int dropped = holdings.dropUnstartedNotOwnedBy(liveness.token());
    log.warn("Herald node {}: a {} failed and may have committed; continuing as {} instead of {} ({} held notice(s)"
        + " dropped, taken over after the node timeout)", settings.nodeId(), step, liveness.token(), old, dropped);
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
