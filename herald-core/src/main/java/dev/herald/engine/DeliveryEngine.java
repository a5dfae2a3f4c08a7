package dev.herald.engine;

import dev.herald.HeraldException;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeOperations;
import dev.herald.NoticeRequest;
import dev.herald.spi.Change;
import dev.herald.spi.Channel;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery engine of one node.
 *
 * <p>Four loops: the <em>poller</em> leases due notices (due within the look-ahead) in batches; the
 * <em>timer</em> fires each at its due time and hands it to its channel; the <em>writer</em>
 * records outcomes in group commits; the <em>heartbeat</em> renews the leases of what this node
 * holds. Notices enqueued through this engine are leased at insert and go to the timer right after
 * commit, without waiting for a poll. Memory is bounded by {@link EngineSettings#maxHeld()}.
 *
 * <p>This class starts and stops them; each is a part of its own over one {@link EngineCore}:
 * {@link ClaimLoop}, {@link Firing}, {@link Outcomes} (with {@link OutcomeWriter}), {@link
 * CommitIntake} (notices written in a caller's transaction) and {@link NodeUpkeep} (heartbeat,
 * revocations, backlog count, housekeeping).
 */
public final class DeliveryEngine {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);
  /**
   * Suffix of the owner written on notices pre-claimed in a caller's transaction. No node row
   * carries it, so such a notice is anybody's once its short lease runs out: a caller that never
   * reports its commit cannot leave it held by a live node forever. {@link #committed} adopts it.
   */
  static final String PROVISIONAL = "*";


  /** A notice written by {@link #write}: the stored row, and whether this engine reserved room to fire it. */
  public record Enqueued(NoticeRow row, boolean created, boolean reserved) {
    public Notice notice() {
      return row.notice();
    }
  }

  private final EngineCore core;
  private final EngineSettings settings;
  private final NoticeStore store;
  private final Clock clock;
  private final Listeners listeners;
  private final ChannelRegistry channels;
  private final DefinitionCache definitions;
  private final DueTimer timer;
  private final Semaphore room;
  private final Holdings holdings;
  private final Liveness liveness;
  private final OutcomeWriter writer;
  private final ReceiverCircuits circuits;
  private final OutcomeWaiters waiters;
  private final SyncFirst syncFirst;
  private final OperatorActions operations;
  private final ClaimLoop claimLoop;
  private final Firing firing;
  private final Outcomes afterAttempts;
  private final CommitIntake commitIntake;
  private final NodeUpkeep upkeep;
  private Thread pollerThread;
  private Thread timerThread;
  /**
   * Two group commits in flight: while one waits for the database, the next batch is being written,
   * so the database is never idle between commits (herald-bench: "two writers" roof). Each batch
   * locks its rows in id order, so the two cannot deadlock, and a notice has at most one outcome
   * pending at a time, so they never race on one row.
   */
  private static final int WRITERS = 2;

  private final List<Thread> writerThreads = new ArrayList<>();
  private ScheduledExecutorService scheduler;
  /** Leases are renewed on a thread of their own, so a slow purge never delays a renewal. */
  private ScheduledExecutorService heartbeatThread;

  public DeliveryEngine(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channels,
      List<HeraldListener> listeners, RandomGenerator random) {
    this(settings, store, clock, channels, listeners, random, Tracing.NONE);
  }

  public DeliveryEngine(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channels,
      List<HeraldListener> listeners, RandomGenerator random, Tracing tracing) {
    OutcomeWriter.Callback recorded = new OutcomeWriter.Callback() { // the writer reports to the parts built below
      @Override
      public void recorded(OutcomeWriter.Pending pending, boolean applied) {
        afterAttempts.recorded(pending, applied);
      }

      @Override
      public void batchRecorded(List<OutcomeWriter.Pending> applied) {
        afterAttempts.batchRecorded(applied);
      }
    };
    this.core = new EngineCore(settings, store, clock, channels, listeners, random, recorded, tracing);
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    this.listeners = core.listeners;
    this.channels = core.channels;
    this.definitions = core.definitions;
    this.timer = core.timer;
    this.room = core.room;
    this.holdings = core.holdings;
    this.liveness = core.liveness;
    this.writer = core.writer;
    this.circuits = core.circuits;
    this.waiters = core.waiters;
    this.syncFirst = new SyncFirst(definitions, circuits, waiters, store, clock, this::isRunning);
    this.operations = new OperatorActions(store, definitions, core.intake, clock, this.listeners,
        new OperatorActions.HeldNotices() {
          @Override
          public Holdings.TakeBack takeBack(UUID id) {
            return holdings.takeBack(id);
          }

          @Override
          public void supersede(UUID id, long version) {
            holdings.supersede(id, version, clock.millis());
          }

          @Override
          public String owner() {
            return liveness.token();
          }

          @Override
          public boolean ownerAlive(String owner) {
            return store.isAlive(owner, liveness.aliveSince(clock.millis()));
          }

          @Override
          public java.time.Duration patience() {
            // long enough for a running attempt to end and be recorded, and for a holder to see a revocation
            return settings.deliveryTimeout().plus(settings.nodeTimeout().multipliedBy(2)).plusSeconds(1);
          }

          @Override
          public void wakePoller() {
            if (isRunning()) {
              core.requestPoll();
            }
          }

          @Override
          public boolean running() {
            return isRunning();
          }
        });
    this.afterAttempts = new Outcomes(core, operations);
    this.firing = new Firing(core, afterAttempts);
    this.claimLoop = new ClaimLoop(core);
    this.commitIntake = new CommitIntake(core);
    this.upkeep = new NodeUpkeep(core);
  }

  public DefinitionCache definitions() {
    return definitions;
  }

  public EngineSettings settings() {
    return settings;
  }

  public boolean isRunning() {
    return core.state == EngineCore.State.RUNNING;
  }


  // ================================================================ lifecycle

  /** Takes back this node's leases from a previous run, then starts the loops. */
  public synchronized void start() {
    if (core.state != EngineCore.State.NEW) {
      throw new IllegalStateException("engine already " + core.state.name().toLowerCase());
    }
    definitions.reload();
    liveness.register();
    int recovered = 0;
    for (String earlier : store.incarnations(settings.nodeId())) {
      if (!earlier.equals(liveness.token())) {
        Instant now = clock.instant();
        recovered += store.releaseHeld(earlier, now, heldDueBy(now));
        recovered += store.releaseHeld(earlier + PROVISIONAL, now, heldDueBy(now));
        store.forgetNode(earlier);
      }
    }
    if (recovered > 0) {
      log.info("Herald node {}: took back {} notice(s) held before a restart", settings.nodeId(), recovered);
    }
    core.state = EngineCore.State.RUNNING;
    for (int i = 0; i < WRITERS; i++) {
      writerThreads.add(Thread.ofPlatform().name("herald-writer-" + i).daemon().start(writer::run));
    }
    timerThread = Thread.ofPlatform().name("herald-timer").daemon().start(firing::timerLoop);
    pollerThread = Thread.ofPlatform().name("herald-poller").daemon().start(claimLoop::pollLoop);
    scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-housekeeping").daemon().factory());
    heartbeatThread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-heartbeat").daemon().factory());
    long beat = Math.max(1, settings.heartbeatInterval().toMillis());
    heartbeatThread.scheduleWithFixedDelay(upkeep::heartbeat, beat, beat, TimeUnit.MILLISECONDS);
    if (settings.maxBacklog() > 0) {
      long every = Math.max(100, settings.pollInterval().toMillis());
      scheduler.scheduleWithFixedDelay(upkeep::countBacklog, 0, every, TimeUnit.MILLISECONDS);
    }
    long house = settings.housekeepingInterval().toMillis();
    scheduler.scheduleWithFixedDelay(upkeep::housekeeping, house, house, TimeUnit.MILLISECONDS);
    log.info("Herald node {} started as {}: poll every {} ms, look-ahead {} ms, node timeout {} ms, up to {} held",
        settings.nodeId(), liveness.token(), settings.pollInterval().toMillis(), settings.lookAhead().toMillis(),
        settings.nodeTimeout().toMillis(), settings.maxHeld());
  }

  /**
   * Graceful stop: no more claims; notices held but not started are released; running attempts get
   * {@link EngineSettings#shutdownTimeout()} to finish and be recorded.
   */
  public synchronized void close() {
    if (core.state != EngineCore.State.RUNNING) {
      core.state = EngineCore.State.STOPPED;
      channels.closeAll();
      return;
    }
    core.state = EngineCore.State.STOPPING;
    long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
    // No interrupts: one landing inside JDBC makes H2 close its file (ClosedByInterruptException),
    // shutting the whole database. The loops see the state change and end by themselves.
    core.requestPoll();
    timer.wakeUp();
    join(pollerThread);
    join(timerThread);
    Instant now = clock.instant();
    List<HeldNotice> unstarted = holdings.drainTimer();
    List<Change> releases = new ArrayList<>();
    for (HeldNotice h : unstarted) {
      releases.add(Transitions.release(h.row, now));
    }
    core.releaseQuietly(releases, "release unstarted notices at shutdown");
    while (holdings.running() > 0 && System.nanoTime() < deadline) {
      EngineCore.pause(10);
    }
    int running = holdings.running();
    writer.stop(Math.max(0, deadline - System.nanoTime()));
    writerThreads.forEach(DeliveryEngine::join);
    stopGently(scheduler);
    stopGently(heartbeatThread);
    if (running == 0) {
      try {
        Instant end = clock.instant();
        store.releaseHeld(liveness.token(), end, heldDueBy(end)); // whatever a kept retry left behind
        store.forgetNode(liveness.token()); // so that nothing waits for this node's timeout
      } catch (RuntimeException e) {
        log.warn("Herald node {}: could not sign off ({}); other nodes take over after the node timeout",
            settings.nodeId(), e.getMessage());
      }
    } else {
      log.warn("Herald node {}: {} attempt(s) still running at shutdown; other nodes deliver them again once"
          + " this node's heartbeat is {} ms old", settings.nodeId(), running, settings.nodeTimeout().toMillis());
    }
    channels.closeAll();
    core.state = EngineCore.State.STOPPED;
    log.info("Herald node {} stopped; released {} unstarted notice(s)", settings.nodeId(), unstarted.size());
  }


  /**
   * The latest due time of a notice this node (or an earlier incarnation of it) can hold: it holds
   * only notices due within the look-ahead of when it took them, and took none after now; a node
   * timeout more allows for the clock of an earlier process on another host. Releases read only up
   * to it, so a start or stop beside millions of future notices reads none of them.
   */
  private Instant heldDueBy(Instant now) {
    return now.plus(settings.lookAhead()).plus(settings.nodeTimeout());
  }

  /** Lets a running housekeeping step or renewal finish (it checks the state), then stops the executor. */
  private static void stopGently(ScheduledExecutorService executor) {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }


  // ================================================================ intake

  /**
   * Validates every request (nothing is written if one is bad), then inserts them with the
   * caller's connection, without committing. With {@code track}, notices due within the look-ahead
   * are leased to this node at insert, to be fired from memory once {@link #committed} is called.
   */
  public List<Enqueued> write(Connection connection, List<NoticeRequest> requests, boolean track) {
    return commitIntake.write(connection, requests, track);
  }

  /**
   * The caller's transaction committed: fire what this engine pre-claimed, from memory. Never
   * throws: the caller's transaction has committed, and a notice this cannot fire at once is
   * delivered by the poll.
   */
  public void committed(List<Enqueued> written) {
    commitIntake.committed(written);
  }

  /** The caller's transaction rolled back: nothing of it will be delivered. */
  public void rolledBack(List<Enqueued> written) {
    commitIntake.rolledBack(written);
  }

  // ================================================================ housekeeping

  /** Notices due and undelivered as last counted; 0 unless a backlog limit is set. */
  public int dueBacklog() {
    return core.dueBacklog;
  }

  /** Purges history now (what housekeeping does on its own schedule); returns how many were purged. */
  public int purgeHistoryNow() {
    return upkeep.purgeHistoryNow();
  }

  // ================================================================ manual driving (tests, tools)

  /**
   * Runs, on the calling thread, one attempt of every notice due by the clock's current time, and
   * records the outcomes before returning. For tests with a settable clock; the engine must not be
   * started. Returns the number of attempts made.
   */
  public int runDue() {
    if (core.state == EngineCore.State.RUNNING || core.state == EngineCore.State.STOPPING) {
      throw new IllegalStateException("runDue() drives an engine that is not started; this one is running");
    }
    Set<UUID> attempted = new HashSet<>();
    int total = 0;
    while (true) {
      Instant now = clock.instant();
      claimLoop.claimInto(now, now, Math.min(settings.claimBatch(), room.availablePermits()));
      List<HeldNotice> due = timer.pollDue(now.toEpochMilli(), Integer.MAX_VALUE);
      List<OutcomeWriter.Pending> outcomes = new ArrayList<>();
      for (HeldNotice h : due) {
        if (!attempted.add(h.id())) {
          outcomes.add(new OutcomeWriter.Pending(h, Transitions.release(h.row, now), null));
          continue;
        }
        outcomes.add(firing.runOne(h));
        total++;
      }
      if (outcomes.isEmpty()) {
        return total;
      }
      try {
        writer.write(outcomes);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new HeraldException("interrupted while recording outcomes", e);
      }
      if (outcomes.stream().allMatch(p -> p.change().attempt() == null)) {
        return total;
      }
    }
  }

  // ================================================================ waiting for outcomes, sync-first

  /** See {@link dev.herald.Herald#outcomeOf}. */
  public CompletableFuture<Notice> outcomeOf(UUID id) {
    return waiters.register(id, () -> store.find(id));
  }

  /** See {@link dev.herald.Herald#deliverNow}; {@code enqueue} stores the notice in its own transaction. */
  public dev.herald.SyncDelivery deliverNow(
      java.util.function.Function<NoticeRequest, Notice> enqueue, NoticeRequest request, Duration maxWait) {
    return syncFirst.deliverNow(enqueue, request, maxWait);
  }

  /** The circuit state of a definition's receiver, for health reports and tests. */
  public dev.herald.ReceiverState circuitState(String definition) {
    return circuits.state(SyncFirst.receiverOf(definitions.require(definition, "definition")));
  }

  /** This node's in-memory counts, for metrics. */
  public dev.herald.EngineStats stats() {
    return new dev.herald.EngineStats(
        settings.maxHeld() - room.availablePermits(),
        holdings.count(HeldNotice.Stage.WAITING),
        holdings.count(HeldNotice.Stage.DELIVERING),
        writer.backlog(),
        circuits.count(dev.herald.ReceiverState.OPEN),
        circuits.count(dev.herald.ReceiverState.HALF_OPEN));
  }

  /** What operators do: search, detail, resend, cancel, confirm, edit, recover. */
  public NoticeOperations operations() {
    return operations;
  }
}
