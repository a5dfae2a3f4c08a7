package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.HeraldException;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeOperations;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.spi.Change;
import dev.herald.spi.Channel;
import dev.herald.spi.Claim;
import dev.herald.spi.Delivery;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 */
public final class DeliveryEngine {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);
  /** Longest wait between claims while the database fails (unless the poll interval is longer). */
  private static final long MAX_POLL_BACKOFF_MS = 5_000;
  /**
   * Suffix of the owner written on notices pre-claimed in a caller's transaction. No node row
   * carries it, so such a notice is anybody's once its short lease runs out: a caller that never
   * reports its commit cannot leave it held by a live node forever. {@link #committed} adopts it.
   */
  static final String PROVISIONAL = "*";

  private enum State { NEW, RUNNING, STOPPING, STOPPED }

  /** A notice written by {@link #write}: the stored row, and whether this engine reserved room to fire it. */
  public record Enqueued(NoticeRow row, boolean created, boolean reserved) {
    public Notice notice() {
      return row.notice();
    }
  }

  private final EngineSettings settings;
  private final NoticeStore store;
  private final Clock clock;
  private final RandomGenerator random;
  private final Listeners listeners;
  private final ChannelRegistry channels;
  private final DefinitionCache definitions;
  private final Intake intake;
  private final DueTimer timer = new DueTimer();
  private final Semaphore room;
  private final Holdings holdings;
  private final Liveness liveness;
  private final Semaphore deliverySlots;
  private final OutcomeWriter writer;
  private final ReceiverCircuits circuits;
  private final OutcomeWaiters waiters;
  private final SyncFirst syncFirst;
  private final OperatorActions operations;
  private final Object pollSignal = new Object();
  private volatile boolean pollRequested;
  /** Notices due and undelivered, as last counted (only when {@link EngineSettings#maxBacklog()} is set). */
  private volatile int dueBacklog;
  private volatile State state = State.NEW;
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
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    this.random = random;
    this.listeners = new Listeners(listeners);
    this.channels = new ChannelRegistry(channels);
    this.definitions = new DefinitionCache(store, clock, this.channels);
    this.intake = new Intake(clock, definitions, settings.maxPayloadBytes());
    this.room = new Semaphore(settings.maxHeld());
    this.holdings = new Holdings(timer, room);
    this.liveness = new Liveness(store, clock, settings.nodeId(), settings.nodeTimeout());
    this.deliverySlots = new Semaphore(settings.maxConcurrentDeliveries());
    this.writer = new OutcomeWriter(store, settings.writeBatch(), new OutcomeWriter.Callback() {
      @Override
      public void recorded(OutcomeWriter.Pending pending, boolean applied) {
        DeliveryEngine.this.recorded(pending, applied);
      }

      @Override
      public void batchRecorded(List<OutcomeWriter.Pending> applied) {
        applyEarlyConfirmations(applied);
      }
    }, this.listeners);
    this.circuits = new ReceiverCircuits(clock, settings.circuitFailureThreshold(), settings.circuitOpenFor());
    this.waiters = new OutcomeWaiters(clock);
    this.syncFirst = new SyncFirst(definitions, circuits, waiters, store, clock, this::isRunning);
    this.operations = new OperatorActions(store, definitions, intake, clock, this.listeners,
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
              requestPoll();
            }
          }

          @Override
          public boolean running() {
            return isRunning();
          }
        });
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

  /** Takes back this node's leases from a previous run, then starts the loops. */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("engine already " + state.name().toLowerCase());
    }
    definitions.reload();
    liveness.register();
    int recovered = 0;
    for (String earlier : store.incarnations(settings.nodeId())) {
      if (!earlier.equals(liveness.token())) {
        recovered += store.releaseAll(earlier, clock.instant());
        recovered += store.releaseAll(earlier + PROVISIONAL, clock.instant());
        store.forgetNode(earlier);
      }
    }
    if (recovered > 0) {
      log.info("Herald node {}: took back {} notice(s) held before a restart", settings.nodeId(), recovered);
    }
    state = State.RUNNING;
    for (int i = 0; i < WRITERS; i++) {
      writerThreads.add(Thread.ofPlatform().name("herald-writer-" + i).daemon().start(writer::run));
    }
    timerThread = Thread.ofPlatform().name("herald-timer").daemon().start(this::timerLoop);
    pollerThread = Thread.ofPlatform().name("herald-poller").daemon().start(this::pollLoop);
    scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-housekeeping").daemon().factory());
    heartbeatThread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-heartbeat").daemon().factory());
    long beat = Math.max(1, settings.heartbeatInterval().toMillis());
    heartbeatThread.scheduleWithFixedDelay(this::heartbeat, beat, beat, TimeUnit.MILLISECONDS);
    if (settings.maxBacklog() > 0) {
      long every = Math.max(100, settings.pollInterval().toMillis());
      scheduler.scheduleWithFixedDelay(this::countBacklog, 0, every, TimeUnit.MILLISECONDS);
    }
    long house = settings.housekeepingInterval().toMillis();
    scheduler.scheduleWithFixedDelay(this::housekeeping, house, house, TimeUnit.MILLISECONDS);
    log.info("Herald node {} started as {}: poll every {} ms, look-ahead {} ms, node timeout {} ms, up to {} held",
        settings.nodeId(), liveness.token(), settings.pollInterval().toMillis(), settings.lookAhead().toMillis(),
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
    requestPoll();
    timer.wakeUp();
    join(pollerThread);
    join(timerThread);
    Instant now = clock.instant();
    List<HeldNotice> unstarted = holdings.drainTimer();
    List<Change> releases = new ArrayList<>();
    for (HeldNotice h : unstarted) {
      releases.add(Transitions.release(h.row, now));
    }
    releaseQuietly(releases, "release unstarted notices at shutdown");
    while (holdings.running() > 0 && System.nanoTime() < deadline) {
      pause(10);
    }
    int running = holdings.running();
    writer.stop(Math.max(0, deadline - System.nanoTime()));
    writerThreads.forEach(DeliveryEngine::join);
    stopGently(scheduler);
    stopGently(heartbeatThread);
    if (running == 0) {
      try {
        store.releaseAll(liveness.token(), clock.instant()); // whatever a kept retry left behind
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
    state = State.STOPPED;
    log.info("Herald node {} stopped; released {} unstarted notice(s)", settings.nodeId(), unstarted.size());
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

  /** Writes releases directly (the writer may be gone); a failure leaves them to the node timeout. */
  private void releaseQuietly(List<Change> releases, String what) {
    if (releases.isEmpty()) {
      return;
    }
    try {
      store.apply(releases);
    } catch (RuntimeException e) {
      listeners.onEngineError(what, e);
      log.warn("Herald node {}: cannot {} ({}); other nodes take them over after the node timeout",
          settings.nodeId(), what, e.getMessage());
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
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
    int backlog = dueBacklog;
    if (settings.maxBacklog() > 0 && backlog > settings.maxBacklog()) {
      throw new dev.herald.BackPressureException(backlog, settings.maxBacklog());
    }
    List<NoticeRow> rows = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      rows.add(intake.newRow(requests.get(i), requests.size() == 1 ? "" : "notices[" + i + "]."));
    }
    List<Enqueued> out = new ArrayList<>(rows.size());
    try {
      Instant horizon = clock.instant().plus(settings.lookAhead());
      for (NoticeRow row : rows) {
        boolean reserve = track && isRunning() && !row.notice().nextAttemptAt().isAfter(horizon)
            && settings.handles(row.notice().definition(), row.shard()) && room.tryAcquire();
        NoticeRow toInsert = reserve
            ? Intake.preclaimed(row, liveness.token() + PROVISIONAL, clock.instant().plus(settings.nodeTimeout()))
            : row;
        out.add(new Enqueued(toInsert, true, reserve));
        InsertResult result = store.insert(connection, toInsert);
        if (!result.created()) {
          out.set(out.size() - 1, new Enqueued(result.row(), false, false));
          if (reserve) {
            room.release();
          }
        }
      }
      return out;
    } catch (RuntimeException e) {
      rolledBack(out);
      throw e;
    }
  }

  /**
   * The caller's transaction committed: fire what this engine pre-claimed, from memory. Never
   * throws: the caller's transaction has committed, and a notice this cannot fire at once is
   * delivered by the poll.
   */
  public void committed(List<Enqueued> written) {
    boolean wake = false;
    Map<UUID, NoticeRow> adopted = Map.of();
    try {
      adopted = adopt(written);
    } finally {
      for (Enqueued e : written) {
        try {
          wake |= committedOne(e, adopted.get(e.notice().id()));
        } catch (Throwable t) { // keep going: every reserved permit must come back
          listeners.onEngineError("fire committed notice", t);
        }
      }
    }
    if (wake && isRunning()) {
      requestPoll();
    }
  }

  /** Holds one committed notice; true if the poller should look for it instead. */
  private boolean committedOne(Enqueued e, NoticeRow adopted) {
    if (e.reserved() && adopted == null) {
      room.release(); // rolled back to a savepoint, or its provisional hold ran out: the poll finds it
      return e.created() && isRunning();
    }
    if (e.created()) {
      listeners.onEnqueued(e.notice());
    }
    if (!e.reserved()) {
      return e.created() && !e.notice().nextAttemptAt().isAfter(clock.instant().plus(settings.lookAhead()));
    }
    Optional<NoticeDefinition> def = definitions.find(e.notice().definition());
    if (!isRunning() || def.isEmpty()) {
      room.release();
      releaseQuietly(List.of(Transitions.release(adopted, clock.instant())), "release a committed notice");
    } else if (!holdings.add(new HeldNotice(adopted, def.get()))) { // gives the permit back
      releaseQuietly(List.of(Transitions.release(adopted, clock.instant())), "release a committed notice");
    }
    return false;
  }

  /**
   * Moves the reserved notices that really committed (a rollback to a savepoint inside the caller's
   * transaction removes a row that the transaction still lists) from their provisional owner to
   * this node, in one round trip. If the database cannot answer, none is fired from memory: the
   * poll delivers them once their provisional hold runs out.
   */
  private Map<UUID, NoticeRow> adopt(List<Enqueued> written) {
    List<UUID> ids = new ArrayList<>();
    for (Enqueued e : written) {
      if (e.reserved()) {
        ids.add(e.notice().id());
      }
    }
    if (ids.isEmpty() || !isRunning()) {
      return Map.of();
    }
    String owner = liveness.token();
    Set<UUID> moved;
    try {
      moved = store.adopt(owner + PROVISIONAL, owner, ids);
    } catch (RuntimeException ex) {
      listeners.onEngineError("adopt committed notices", ex);
      abandonIncarnation("adopt");
      return Map.of();
    }
    Map<UUID, NoticeRow> out = new java.util.HashMap<>();
    for (Enqueued e : written) {
      if (e.reserved() && moved.contains(e.notice().id())) {
        NoticeRow r = e.row();
        out.put(r.id(), r.next(r.notice(), owner, r.leaseUntil()));
      }
    }
    return out;
  }

  /** The caller's transaction rolled back: nothing of it will be delivered. */
  public void rolledBack(List<Enqueued> written) {
    for (Enqueued e : written) {
      if (e.reserved()) {
        room.release();
      }
    }
  }

  // ================================================================ polling

  private void requestPoll() {
    synchronized (pollSignal) {
      pollRequested = true;
      pollSignal.notifyAll();
    }
  }

  private void pollLoop() {
    long backoff = settings.pollInterval().toMillis();
    while (state == State.RUNNING) {
      long wait = settings.pollInterval().toMillis();
      try {
        int asked = Math.min(settings.claimBatch(), room.availablePermits());
        if (asked == 0) {
          wait = 10; // full: look again as soon as room frees up
        } else {
          Instant now = clock.instant();
          int got = claimInto(now, now.plus(settings.lookAhead()), asked);
          backoff = settings.pollInterval().toMillis();
          if (got == asked) {
            wait = 0; // more may be due: claim again at once
          }
        }
      } catch (RuntimeException e) { // a StoreException while the database is away; anything else must not end the loop either
        listeners.onEngineError("claim", e);
        log.warn("Herald node {}: claim failed, retrying in {} ms: {}", settings.nodeId(), backoff, e.getMessage());
        wait = backoff;
        // Capped like the writer's retries, so that delivery resumes within seconds of the database's return.
        backoff = Math.min(backoff * 2, Math.max(MAX_POLL_BACKOFF_MS, settings.pollInterval().toMillis()));
      }
      if (wait > 0) {
        synchronized (pollSignal) {
          try {
            if (!pollRequested && state == State.RUNNING) {
              pollSignal.wait(wait);
            }
          } catch (InterruptedException e) {
            return;
          }
          pollRequested = false;
        }
      }
    }
  }

  /** Leases up to {@code limit} notices due by {@code horizon} into the timer; returns how many. */
  private int claimInto(Instant now, Instant horizon, int limit) {
    if (!room.tryAcquire(limit)) {
      return 0;
    }
    List<NoticeRow> rows;
    try {
      rows = store.claim(new Claim(liveness.token(), now, liveness.aliveSince(now.toEpochMilli()), horizon,
          now.plus(settings.nodeTimeout()), limit, settings.definitions(), settings.shards()));
    } catch (Throwable e) {
      room.release(limit);
      if (isRunning()) {
        abandonIncarnation("claim");
      }
      throw e;
    }
    room.release(limit - rows.size());
    List<Change> giveBack = new ArrayList<>();
    for (NoticeRow row : rows) {
      try {
        // A notice whose definition was deleted is held too: its attempt fails it (DEAD) without a channel.
        NoticeDefinition def = definitions.find(row.notice().definition()).orElse(null);
        if (!holdings.add(new HeldNotice(row, def))) {
          giveBack.add(Transitions.release(row, now)); // still held from an earlier claim, or reserved by an operator
        }
      } catch (Throwable t) { // every claimed row must end in memory or released, never leased and forgotten
        room.release();
        giveBack.add(Transitions.release(row, now));
        listeners.onEngineError("hold claimed notice", t);
      }
    }
    releaseQuietly(giveBack, "release notices this node cannot hold");
    return rows.size();
  }

  // ================================================================ firing

  private void timerLoop() {
    while (state == State.RUNNING) {
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
    if (state != State.RUNNING || !acquireDeliverySlot()) {
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
    while (state == State.RUNNING) {
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
    while (writer.backlog() > settings.writeBatch() && state == State.RUNNING) {
      java.util.concurrent.locks.LockSupport.parkNanos(200_000);
    }
  }

  /** Starts one attempt; the returned future completes when its outcome is queued for writing. */
  private CompletableFuture<Void> dispatch(HeldNotice h) {
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    CompletableFuture<DeliveryResult> attempt;
    if (confirmationOverdue(h)) {
      attempt = CompletableFuture.completedFuture(null); // finish() turns it into DEAD without a delivery
    } else {
      try {
        attempt = attempt(h).toCompletableFuture();
      } catch (Throwable e) {
        attempt = CompletableFuture.failedFuture(e);
      }
    }
    return attempt
        .orTimeout(settings.deliveryTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((r, e) -> {
          finish(h, resultOf(r, e), started, Duration.ofNanos(System.nanoTime() - t0));
          return null;
        });
  }

  /** The channel call, or a result that needs none (definition deleted, channel missing). */
  private java.util.concurrent.CompletionStage<DeliveryResult> attempt(HeldNotice h) {
    if (h.definition == null) {
      return CompletableFuture.completedFuture(
          DeliveryResult.fail("definition '" + h.row.notice().definition() + "' no longer exists"));
    }
    Channel channel = channels.get(h.definition.channel());
    if (channel == null) {
      return CompletableFuture.completedFuture(
          DeliveryResult.retry("no channel named '" + h.definition.channel() + "' on node " + settings.nodeId()));
    }
    return channel.deliver(new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1));
  }

  /** A confirm redelivery whose attempts are used up: the notice goes DEAD instead of being sent again. */
  private static boolean confirmationOverdue(HeldNotice h) {
    return h.definition != null && Transitions.wasDelivered(h.row)
        && h.definition.attemptsExhausted(h.row.attemptsInBudget());
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

  /**
   * Queues the attempt's outcome for writing. Never throws and never leaves the notice behind: if
   * the outcome cannot even be computed, the notice is released as it was.
   */
  private void finish(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
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

  private OutcomeWriter.Pending pendingOutcome(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
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
  private void recorded(OutcomeWriter.Pending p, boolean applied) {
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

  /**
   * Confirmations that arrived while their notices were being delivered: applied as soon as those
   * deliveries are recorded as awaiting confirmation (or, for a confirm redelivery whose attempts
   * ran out meanwhile, as dead for the want of one).
   */
  private void applyEarlyConfirmations(List<OutcomeWriter.Pending> applied) {
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

  // ================================================================ liveness and housekeeping

  /**
   * Proves this node alive, or finds that it lapsed (the database was away, or the process paused,
   * longer than the node timeout) and drops what it held under the lapsed incarnation; then lets go
   * of the notices operators on other nodes asked for. Catches everything: a scheduled task that
   * throws never runs again.
   */
  private void heartbeat() {
    try {
      if (!liveness.beat()) {
        int dropped = holdings.dropUnstartedNotOwnedBy(liveness.token());
        listeners.onEngineError("heartbeat", new dev.herald.HeraldException("node " + settings.nodeId()
            + " missed its heartbeats for longer than the node timeout; other nodes may have taken over its"
            + " notices; continuing as " + liveness.token() + " (" + dropped + " held notice(s) dropped)"));
        log.warn("Herald node {}: heartbeat lapsed; continuing as {}, dropped {} held notice(s)",
            settings.nodeId(), liveness.token(), dropped);
        requestPoll();
      }
      revocations();
      holdings.expireSupersessions(clock.millis() - 60_000);
    } catch (Throwable e) {
      listeners.onEngineError("heartbeat", e);
      log.warn("Herald node {}: heartbeat failed: {}", settings.nodeId(), e.toString());
    }
  }

  /**
   * A claim or adoption failed, and may have committed anyway: rows under the current token could
   * be held by no one. Continue under a new token; the old one's rows are taken over once its
   * heartbeat is stale, by any node including this one.
   */
  private void abandonIncarnation(String step) {
    String old = liveness.token();
    liveness.abandon();
    int dropped = holdings.dropUnstartedNotOwnedBy(liveness.token());
    log.warn("Herald node {}: a {} failed and may have committed; continuing as {} instead of {} ({} held notice(s)"
        + " dropped, taken over after the node timeout)", settings.nodeId(), step, liveness.token(), old, dropped);
  }

  /** Lets go of the unstarted notices that operators on other nodes asked for; running ones wait for their outcome. */
  private void revocations() {
    List<UUID> asked = store.revocationsFor(liveness.token());
    if (asked.isEmpty()) {
      return;
    }
    List<Change> releases = new ArrayList<>();
    List<UUID> answered = new ArrayList<>();
    Instant now = clock.instant();
    for (UUID id : asked) {
      Holdings.Taken taken = holdings.take(id);
      Holdings.TakeBack r = taken.result();
      if (r == Holdings.TakeBack.TAKEN) {
        releases.add(Transitions.release(taken.notice().row, now));
      }
      if (r != Holdings.TakeBack.BUSY) {
        answered.add(id);
      }
    }
    releaseQuietly(releases, "let go of revoked notices");
    store.clearRevocations(answered);
  }

  private void countBacklog() {
    try {
      dueBacklog = store.countDue(clock.instant(), settings.maxBacklog() + 1);
    } catch (Throwable e) {
      listeners.onEngineError("count backlog", e);
    }
  }

  /** Notices due and undelivered as last counted; 0 unless a backlog limit is set. */
  public int dueBacklog() {
    return dueBacklog;
  }

  private void housekeeping() {
    try {
      waiters.expire(Duration.ofHours(1).toMillis());
      definitions.reload();
      store.forgetSilentNodes(clock.instant().minus(Duration.ofHours(1)));
      store.purgeRequests(clock.instant().minus(Duration.ofDays(1)));
      Instant before = clock.instant().minus(settings.historyRetention());
      int purged;
      int total = 0;
      do {
        purged = store.purgeHistory(before, 1_000);
        total += purged;
      } while (purged == 1_000 && isRunning());
      if (total > 0) {
        log.info("Herald node {}: purged {} finished notice(s) older than {}", settings.nodeId(), total, before);
      }
    } catch (Throwable e) {
      listeners.onEngineError("housekeeping", e);
      log.warn("Herald node {}: housekeeping failed: {}", settings.nodeId(), e.getMessage());
    }
  }

  /** Purges history now (what housekeeping does on its own schedule); returns how many were purged. */
  public int purgeHistoryNow() {
    Instant before = clock.instant().minus(settings.historyRetention());
    int total = 0;
    int purged;
    do {
      purged = store.purgeHistory(before, 1_000);
      total += purged;
    } while (purged == 1_000);
    return total;
  }

  // ================================================================ manual driving (tests, tools)

  /**
   * Runs, on the calling thread, one attempt of every notice due by the clock's current time, and
   * records the outcomes before returning. For tests with a settable clock; the engine must not be
   * started. Returns the number of attempts made.
   */
  public int runDue() {
    if (state == State.RUNNING || state == State.STOPPING) {
      throw new IllegalStateException("runDue() drives an engine that is not started; this one is running");
    }
    Set<UUID> attempted = new HashSet<>();
    int total = 0;
    while (true) {
      Instant now = clock.instant();
      claimInto(now, now, Math.min(settings.claimBatch(), room.availablePermits()));
      List<HeldNotice> due = timer.pollDue(now.toEpochMilli(), Integer.MAX_VALUE);
      List<OutcomeWriter.Pending> outcomes = new ArrayList<>();
      for (HeldNotice h : due) {
        if (!attempted.add(h.id())) {
          outcomes.add(new OutcomeWriter.Pending(h, Transitions.release(h.row, now), null));
          continue;
        }
        outcomes.add(runOne(h));
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

  private OutcomeWriter.Pending runOne(HeldNotice h) {
    holdings.begin(h);
    if (h.definition == null || confirmationOverdue(h)) {
      holdings.recording(h);
      return pendingOutcome(h, DeliveryResult.fail("definition '" + h.row.notice().definition() + "' no longer exists"),
          clock.instant(), Duration.ZERO);
    }
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    Channel channel = channels.get(h.definition.channel());
    DeliveryResult result;
    if (channel == null) {
      result = DeliveryResult.retry("no channel named '" + h.definition.channel() + "'");
    } else {
      try {
        result = channel.deliver(new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1))
            .toCompletableFuture()
            .get(settings.deliveryTimeout().toMillis(), TimeUnit.MILLISECONDS);
        result = resultOf(result, null);
      } catch (ExecutionException e) {
        result = resultOf(null, e.getCause());
      } catch (TimeoutException | RuntimeException e) {
        result = resultOf(null, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new HeraldException("interrupted while delivering notice " + h.id(), e);
      }
    }
    holdings.recording(h);
    circuits.record(SyncFirst.receiverOf(h.definition, h.row.notice().target()), result);
    return pendingOutcome(h, result, started, Duration.ofNanos(System.nanoTime() - t0));
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
