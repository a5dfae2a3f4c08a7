package dev.herald.engine;

import dev.herald.EngineSettings;
import dev.herald.HeraldException;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeOperations;
import dev.herald.NoticeRequest;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery engine of one node: a one-way pipeline, wired here and nowhere else.
 *
 * <pre>
 *   claim ({@link Claimer}, the poller; {@link CommitIntake} after a caller's commit)
 *     → hold ({@link Ownership}: incarnations, held notices, reconciliation)
 *     → fire ({@link Firing}, the timer, through a {@link Channel})
 *     → judge ({@link Judge}: {@link Transitions}, circuits, deferrals kept in memory)
 *     → record ({@link Recorder}, group commits)
 *     → settle ({@link Settler}: memory, listeners, waiters)
 * </pre>
 *
 * Beside it: {@link NodeUpkeep} (heartbeat, revocations, backlog count, housekeeping), {@link
 * OperatorActions} and {@link SyncFirst}. {@link #runDue} drives the same stages on the caller's
 * thread, for tests with a settable clock.
 */
public final class DeliveryEngine {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  /** A notice written by {@link #write}: the stored row, and whether this engine reserved room to fire it. */
  /** How notices written in a transaction are held by this node until they are due. */
  public enum Hold {
    /** Not at all: the poll finds them after the commit (a transaction Herald is never told about). */
    NONE,
    /**
     * Provisionally, under the incarnation's token + {@code *} with a lease of one node timeout, adopted
     * after the caller's commit: the caller's own code runs in the transaction, and a rollback to one of
     * its savepoints can remove a row the engine was told about.
     */
    PROVISIONAL,
    /**
     * Under the incarnation's token itself, held after the commit without a round trip: Herald's own
     * transaction, in which nothing else runs, so a committed insert is a committed notice. A commit
     * whose answer is lost marks a doubt: reconciliation releases what committed and no memory holds.
     */
    OWN
  }

  public record Enqueued(NoticeRow row, boolean created, boolean reserved) {
    public Notice notice() {
      return row.notice();
    }
  }

  private enum State { NEW, RUNNING, STOPPING, STOPPED }

  /**
   * Two group commits in flight: while one waits for the database, the next batch is being written,
   * so the database is never idle between commits (herald-bench: "two writers" roof). Each batch
   * locks its rows in id order, so the two cannot deadlock, and a notice has at most one outcome
   * pending at a time, so they never race on one row.
   */
  private static final int WRITERS = 2;

  private final EngineSettings settings;
  private final NoticeStore store;
  private final Clock clock;
  private final ChannelRegistry channels;
  private final DefinitionCache definitions;
  private final ReceiverCircuits circuits;
  private final OutcomeWaiters waiters;
  private final PollSignal poll = new PollSignal();
  private final Ownership ownership;
  private final Claimer claimer;
  private final CommitIntake commitIntake;
  private final Firing firing;
  private final Recorder recorder;
  private final NodeUpkeep upkeep;
  private final OperatorActions operations;
  private final SyncFirst syncFirst;
  private volatile State state = State.NEW;
  private Thread pollerThread;
  private Thread timerThread;
  private final List<Thread> writerThreads = new ArrayList<>();
  private ScheduledExecutorService housekeeping;
  /** Heartbeats on a thread of their own, so that a slow purge never delays one. */
  private ScheduledExecutorService heartbeat;

  public DeliveryEngine(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channels,
      List<HeraldListener> listeners, RandomGenerator random) {
    this(settings, store, clock, channels, listeners, random, Tracing.NONE);
  }

  public DeliveryEngine(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channelList,
      List<HeraldListener> listenerList, RandomGenerator random, Tracing tracing) {
    this(settings, store, clock, channelList, listenerList, random, tracing, List.of());
  }

  /** @param optionOwners parts besides the channels that read definition options (a server's alerts) */
  public DeliveryEngine(EngineSettings settings, NoticeStore store, Clock clock, List<Channel> channelList,
      List<HeraldListener> listenerList, RandomGenerator random, Tracing tracing,
      List<dev.herald.spi.OptionOwner> optionOwners) {
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    java.util.function.BooleanSupplier running = this::isRunning;
    Listeners listeners = new Listeners(listenerList);
    this.channels = new ChannelRegistry(channelList, optionOwners);
    this.definitions = new DefinitionCache(store, clock, channels);
    this.circuits = new ReceiverCircuits(clock, settings.circuitFailureThreshold(), settings.circuitOpenFor(),
        settings.circuitSlowCalls());
    this.waiters = new OutcomeWaiters(clock);
    Intake intake = new Intake(clock, definitions, settings.maxPayloadBytes(), tracing.traceContext());
    this.ownership = new Ownership(store, clock, settings.nodeId(), settings.nodeTimeout(), reach(),
        settings.maxHeld(), sweepEvery(settings), listeners);
    this.ownership.wakeWith(poll::request);
    Settler settler = new Settler(settings.nodeId(), clock, ownership, listeners, waiters, poll, running);
    this.recorder = new Recorder(store, settings.writeBatch(), settler, listeners);
    settler.recordThrough(recorder);
    Judge judge = new Judge(settings, clock, random, ownership, circuits, listeners, running);
    this.firing = new Firing(settings, clock, ownership, channels, tracing.observer(), judge, recorder, listeners, running);
    this.claimer = new Claimer(settings, store, clock, ownership, definitions, listeners, poll, running);
    this.upkeep = new NodeUpkeep(settings, store, clock, ownership, definitions, waiters, listeners, running);
    this.commitIntake = new CommitIntake(settings, clock, store, intake, definitions, ownership, listeners, poll,
        running, upkeep::dueBacklog);
    this.operations = new OperatorActions(store, definitions, intake, clock, listeners, heldNotices());
    this.syncFirst = new SyncFirst(definitions, circuits, waiters, store, clock, running);
  }

  /** How often the node compares what its tokens own with what it holds, doubt or not. */
  private static Duration sweepEvery(EngineSettings s) {
    Duration tenBeats = s.nodeTimeout().multipliedBy(10);
    return tenBeats.compareTo(Duration.ofSeconds(30)) > 0 ? tenBeats : Duration.ofSeconds(30);
  }

  /**
   * The latest due time of a notice this node (or an earlier incarnation of it) can hold, past now:
   * it holds only notices due within the look-ahead of when it took them, and took none after now; a
   * node timeout more allows for the clock of an earlier process on another host. Releases and
   * sweeps read only up to it, so a start or stop beside millions of future notices reads none of them.
   */
  private Duration reach() {
    return settings.lookAhead().plus(settings.nodeTimeout());
  }

  private OperatorActions.HeldNotices heldNotices() {
    return new OperatorActions.HeldNotices() {
      @Override
      public Holdings.Taken take(UUID id) {
        return ownership.holdings().take(id);
      }

      @Override
      public void settled(HeldNotice h, boolean written) {
        ownership.holdings().done(h);
        if (!written) {
          ownership.suspect(h.id());
        }
      }

      @Override
      public void supersede(UUID id, long version) {
        ownership.holdings().supersede(id, version, clock.millis());
      }

      @Override
      public boolean isMine(String owner) {
        return ownership.isMine(owner);
      }

      @Override
      public boolean ownerAlive(String owner) {
        return store.isAlive(owner, clock.instant().minus(settings.nodeTimeout()));
      }

      @Override
      public Duration patience() {
        // long enough for a running attempt to end and be recorded, and for a holder to see a revocation
        return settings.deliveryTimeout().plus(settings.nodeTimeout().multipliedBy(2)).plusSeconds(1);
      }

      @Override
      public void wakePoller() {
        poll.request();
      }

      @Override
      public boolean running() {
        return isRunning();
      }
    };
  }

  public DefinitionCache definitions() {
    return definitions;
  }

  public EngineSettings settings() {
    return settings;
  }

  public boolean isRunning() {
    return state == State.RUNNING;
  }

  // ================================================================ lifecycle

  /** Registers this node, takes back what its earlier incarnations held, then starts the loops. */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("engine already " + state.name().toLowerCase());
    }
    definitions.reload();
    ownership.register();
    int recovered = 0;
    for (String earlier : store.incarnations(settings.nodeId())) {
      if (!earlier.equals(ownership.currentToken())) {
        Instant now = clock.instant();
        recovered += store.releaseHeld(earlier, now, now.plus(reach()));
        recovered += store.releaseHeld(earlier + Ownership.PROVISIONAL, now, now.plus(reach()));
        store.forgetNode(earlier);
      }
    }
    if (recovered > 0) {
      log.info("Herald node {}: took back {} notice(s) held before a restart", settings.nodeId(), recovered);
    }
    state = State.RUNNING;
    for (int i = 0; i < WRITERS; i++) {
      writerThreads.add(Thread.ofPlatform().name("herald-writer-" + i).daemon().start(recorder::run));
    }
    timerThread = Thread.ofPlatform().name("herald-timer").daemon().start(firing::run);
    pollerThread = Thread.ofPlatform().name("herald-poller").daemon().start(claimer::run);
    housekeeping = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-housekeeping").daemon().factory());
    heartbeat = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-heartbeat").daemon().factory());
    long beat = Math.max(1, settings.heartbeatInterval().toMillis());
    heartbeat.scheduleWithFixedDelay(upkeep::heartbeat, beat, beat, TimeUnit.MILLISECONDS);
    if (settings.maxBacklog() > 0) {
      long every = Math.max(100, settings.pollInterval().toMillis());
      housekeeping.scheduleWithFixedDelay(upkeep::countBacklog, 0, every, TimeUnit.MILLISECONDS);
    }
    long house = settings.housekeepingInterval().toMillis();
    housekeeping.scheduleWithFixedDelay(upkeep::housekeeping, house, house, TimeUnit.MILLISECONDS);
    log.info("Herald node {} started as {}: poll every {} ms, look-ahead {} ms, node timeout {} ms, up to {} held",
        settings.nodeId(), ownership.currentToken(), settings.pollInterval().toMillis(), settings.lookAhead().toMillis(),
        settings.nodeTimeout().toMillis(), settings.maxHeld());
  }

  /**
   * Graceful stop: no more claims; notices held but not started are released; running attempts get
   * {@link EngineSettings#shutdownTimeout()} to finish and be recorded.
   */
  public synchronized void close() {
    if (state != State.RUNNING) {
      state = State.STOPPED;
      channels.closeAll();
      return;
    }
    state = State.STOPPING;
    long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
    // No interrupts: one landing inside JDBC makes H2 close its file (ClosedByInterruptException),
    // shutting the whole database. The loops see the state change and end by themselves.
    poll.request();
    ownership.timer().wakeUp();
    join(pollerThread);
    join(timerThread);
    List<HeldNotice> unstarted = new ArrayList<>(ownership.holdings().drainTimer());
    unstarted.addAll(firing.drainLines());
    ownership.release(unstarted.stream().map(h -> h.row).toList(), "release unstarted notices at shutdown");
    unstarted.forEach(ownership.holdings()::done);
    while (ownership.holdings().running() > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(10_000_000L);
    }
    int running = ownership.holdings().running();
    recorder.stop(Math.max(0, deadline - System.nanoTime()));
    writerThreads.forEach(DeliveryEngine::join);
    stopGently(housekeeping);
    stopGently(heartbeat);
    if (running == 0) {
      try {
        ownership.signOff(); // whatever a kept retry left behind; nothing waits for this node's timeout
      } catch (RuntimeException e) {
        log.warn("Herald node {}: could not sign off ({}); other nodes take over after the node timeout",
            settings.nodeId(), e.getMessage());
      }
    } else {
      log.warn("Herald node {}: {} attempt(s) still running at shutdown; other nodes deliver them again once"
          + " this node's heartbeat is {} ms old", settings.nodeId(), running, settings.nodeTimeout().toMillis());
    }
    channels.closeAll();
    state = State.STOPPED;
    log.info("Herald node {} stopped; released {} unstarted notice(s)", settings.nodeId(), unstarted.size());
  }

  /** Lets a running housekeeping step or heartbeat finish (it checks the state), then stops the executor. */
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
   * caller's connection, without committing. Unless {@code hold} is {@link Hold#NONE}, notices due
   * within the look-ahead are leased to this node at insert, to be fired from memory once {@link
   * #committed} is called.
   */
  public List<Enqueued> write(Connection connection, List<NoticeRequest> requests, Hold hold) {
    return commitIntake.write(connection, requests, hold);
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
    return upkeep.dueBacklog();
  }

  /** Purges history now (what housekeeping does on its own schedule); returns how many were purged. */
  public int purgeHistoryNow() {
    return upkeep.purgeHistoryNow();
  }

  // ================================================================ manual driving (tests, tools)

  /**
   * Runs, on the calling thread, one attempt of every notice due by the clock's current time, and
   * records the outcomes before returning: the running engine's stages (claim, fire, judge, record,
   * settle), driven one after another. For tests with a settable clock; the engine must not be
   * started. Returns the number of attempts made.
   */
  public int runDue() {
    if (state == State.RUNNING || state == State.STOPPING) {
      throw new IllegalStateException("runDue() drives an engine that is not started; this one is running");
    }
    if (!ownership.ensureRegistered()) {
      throw new HeraldException("cannot register node " + settings.nodeId() + " to run what is due");
    }
    Set<UUID> attempted = new HashSet<>();
    while (true) {
      Instant now = clock.instant();
      ownership.reconcile();
      claimer.claim(ownership.manualToken(), now, now, Math.min(settings.claimBatch(), ownership.freeRoom()));
      List<Recorder.Pending> outcomes = firing.fireDueNow(now.toEpochMilli(), attempted);
      if (outcomes.isEmpty()) {
        return attempted.size();
      }
      try {
        recorder.write(outcomes);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new HeraldException("interrupted while recording outcomes", e);
      }
      if (outcomes.stream().allMatch(p -> p.change().attempt() == null)) {
        return attempted.size();
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
        settings.maxHeld() - ownership.freeRoom(),
        ownership.holdings().count(HeldNotice.Stage.WAITING),
        ownership.holdings().count(HeldNotice.Stage.DELIVERING),
        recorder.backlog(),
        circuits.count(dev.herald.ReceiverState.OPEN),
        circuits.count(dev.herald.ReceiverState.HALF_OPEN));
  }

  /** What operators do: search, detail, resend, cancel, confirm, edit, recover. */
  public NoticeOperations operations() {
    return operations;
  }
}
