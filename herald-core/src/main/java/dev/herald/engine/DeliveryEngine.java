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
  private final Map<UUID, HeldNotice> delivering = new ConcurrentHashMap<>();
  private final Semaphore room;
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
    this.deliverySlots = new Semaphore(settings.maxConcurrentDeliveries());
    this.writer = new OutcomeWriter(store, settings.writeBatch(), this::recorded, this.listeners);
    this.circuits = new ReceiverCircuits(clock, settings.circuitFailureThreshold(), settings.circuitOpenFor());
    this.waiters = new OutcomeWaiters(clock);
    this.syncFirst = new SyncFirst(definitions, circuits, waiters, store, clock, this::isRunning);
    this.operations = new OperatorActions(store, definitions, intake, clock, this.listeners,
        new OperatorActions.HeldNotices() {
          @Override
          public boolean takeBack(NoticeRow row) {
            return takeBackFromTimer(row);
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
    int recovered = store.releaseAll(settings.nodeId(), clock.instant());
    if (recovered > 0) {
      log.info("Herald node {}: took back {} notice(s) leased before a restart", settings.nodeId(), recovered);
    }
    state = State.RUNNING;
    for (int i = 0; i < WRITERS; i++) {
      writerThreads.add(Thread.ofPlatform().name("herald-writer-" + i).daemon().start(writer::run));
    }
    timerThread = Thread.ofPlatform().name("herald-timer").daemon().start(this::timerLoop);
    pollerThread = Thread.ofPlatform().name("herald-poller").daemon().start(this::pollLoop);
    scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-housekeeping").daemon().factory());
    heartbeatThread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("herald-heartbeat").daemon().factory());
    long beat = Math.max(1, settings.lease().toMillis() / 3);
    heartbeatThread.scheduleWithFixedDelay(this::heartbeat, beat, beat, TimeUnit.MILLISECONDS);
    if (settings.maxBacklog() > 0) {
      long every = Math.max(100, settings.pollInterval().toMillis());
      scheduler.scheduleWithFixedDelay(this::countBacklog, 0, every, TimeUnit.MILLISECONDS);
    }
    long house = settings.housekeepingInterval().toMillis();
    scheduler.scheduleWithFixedDelay(this::housekeeping, house, house, TimeUnit.MILLISECONDS);
    log.info("Herald node {} started: poll every {} ms, look-ahead {} ms, lease {} ms, up to {} held",
        settings.nodeId(), settings.pollInterval().toMillis(), settings.lookAhead().toMillis(),
        settings.lease().toMillis(), settings.maxHeld());
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
    List<HeldNotice> unstarted = timer.drain();
    for (HeldNotice h : unstarted) {
      writer.submit(new OutcomeWriter.Pending(h, Transitions.release(h.row, now), null));
    }
    while (!delivering.isEmpty() && System.nanoTime() < deadline) {
      pause(10);
    }
    if (!delivering.isEmpty()) {
      log.warn("Herald node {}: {} attempt(s) still running at shutdown; their leases will expire and they"
          + " will be delivered again", settings.nodeId(), delivering.size());
    }
    writer.stop(Math.max(0, deadline - System.nanoTime()));
    writerThreads.forEach(DeliveryEngine::join);
    stopGently(scheduler);
    stopGently(heartbeatThread);
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
            ? Intake.preclaimed(row, settings.nodeId(), clock.instant().plus(settings.lease()))
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

  /** The caller's transaction committed: fire what this engine leased, from memory. */
  public void committed(List<Enqueued> written) {
    long now = clock.millis();
    long margin = Math.min(settings.lease().toMillis() / 2, 5_000);
    boolean wake = false;
    Set<UUID> confirmed = confirmReserved(written);
    for (Enqueued e : written) {
      if (e.reserved() && !confirmed.contains(e.notice().id())) {
        room.release(); // rolled back to a savepoint inside the committed transaction: it does not exist
        continue;
      }
      if (e.created()) {
        listeners.onEnqueued(e.notice());
      }
      if (!e.reserved()) {
        wake |= e.created() && !e.notice().nextAttemptAt().isAfter(clock.instant().plus(settings.lookAhead()));
        continue;
      }
      // A caller's transaction that outlived most of the lease leaves the notice to lease expiry,
      // so that no other node can have taken it while this one fires it.
      if (isRunning() && e.row().leaseUntil().toEpochMilli() - now > margin) {
        timer.add(new HeldNotice(e.row(), definitions.require(e.notice().definition(), "definition")));
      } else {
        room.release();
      }
    }
    if (wake && isRunning()) {
      requestPoll();
    }
  }

  /**
   * Reads back, in one round trip, which reserved notices really committed (a rollback to a
   * savepoint inside the caller's transaction removes a row that the transaction still lists), and
   * refreshes their leases. If the database cannot answer, none is fired from memory: the poll
   * delivers them after their lease.
   */
  private Set<UUID> confirmReserved(List<Enqueued> written) {
    List<UUID> ids = new ArrayList<>();
    for (Enqueued e : written) {
      if (e.reserved()) {
        ids.add(e.notice().id());
      }
    }
    if (ids.isEmpty() || !isRunning()) {
      return Set.of();
    }
    try {
      return store.stillLeased(settings.nodeId(), ids);
    } catch (RuntimeException ex) {
      listeners.onEngineError("confirm committed notices", ex);
      return Set.of();
    }
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
      rows = store.claim(new Claim(settings.nodeId(), now, horizon, now.plus(settings.lease()), limit,
          settings.definitions(), settings.shards()));
    } catch (RuntimeException e) {
      room.release(limit);
      throw e;
    }
    room.release(limit - rows.size());
    for (NoticeRow row : rows) {
      Optional<NoticeDefinition> def = definitions.find(row.notice().definition());
      if (def.isPresent()) {
        timer.add(new HeldNotice(row, def.get()));
      } else {
        HeldNotice orphan = new HeldNotice(row, null);
        finish(orphan, DeliveryResult.fail("definition '" + row.notice().definition() + "' no longer exists"),
            now, Duration.ZERO);
      }
    }
    return rows.size();
  }

  // ================================================================ firing

  private void timerLoop() {
    while (state == State.RUNNING) {
      try {
        timer.awaitDue(clock::millis, 1_000);
        for (HeldNotice h : timer.pollDue(clock.millis(), 1_000)) {
          if (state != State.RUNNING) {
            timer.add(h); // released by close()
            continue;
          }
          if (!acquireDeliverySlot()) {
            timer.add(h); // stopping: released by close()
            continue;
          }
          awaitWriterCatchUp();
          dispatch(h).whenComplete((r, e) -> deliverySlots.release());
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        listeners.onEngineError("fire", e);
        log.error("Herald node {}: timer step failed", settings.nodeId(), e);
      }
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
    if (h.leaseUntilMillis <= clock.millis()) {
      // The heartbeat could not renew it (database away): another node may own it now.
      room.release();
      log.warn("Herald node {}: lease of notice {} ran out before its time; leaving it to whoever claims it next",
          settings.nodeId(), h.id());
      return CompletableFuture.completedFuture(null);
    }
    if (delivering.putIfAbsent(h.id(), h) != null) {
      room.release(); // still running from an older lease: its lease will lapse and the notice be claimed again
      return CompletableFuture.completedFuture(null);
    }
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    Channel channel = channels.get(h.definition.channel());
    CompletableFuture<DeliveryResult> attempt;
    if (channel == null) {
      attempt = CompletableFuture.completedFuture(
          DeliveryResult.retry("no channel named '" + h.definition.channel() + "' on node " + settings.nodeId()));
    } else {
      try {
        Delivery d = new Delivery(h.row.notice(), h.definition, h.row.notice().attempts() + 1);
        attempt = channel.deliver(d).toCompletableFuture();
      } catch (RuntimeException e) {
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

  private void finish(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    if (h.definition != null) {
      circuits.record(SyncFirst.receiverOf(h.definition), result);
    }
    writer.submit(pendingOutcome(h, result, started, took));
  }

  private OutcomeWriter.Pending pendingOutcome(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    Instant now = clock.instant();
    NoticeDefinition def = h.definition != null ? h.definition : orphanDefinition(h);
    Instant keepUntil = isRunning() ? now.plus(settings.lookAhead()) : null;
    Transitions.AfterAttempt after = Transitions.afterAttempt(
        new Transitions.AttemptFacts(h.row, def, result, started, took, settings.nodeId()),
        now, keepUntil, now.plus(settings.lease()), random);
    return new OutcomeWriter.Pending(h, after.change(), after.alert());
  }

  private static NoticeDefinition orphanDefinition(HeldNotice h) {
    return NoticeDefinition.builder(h.row.notice().definition()).handler("-").maxAttempts(1).build();
  }

  /** Called by the writer once a change is committed, or found stale. */
  private void recorded(OutcomeWriter.Pending p, boolean applied) {
    Change c = p.change();
    HeldNotice h = p.held();
    if (h != null) {
      delivering.remove(h.id(), h);
    }
    if (!applied) {
      if (h != null) {
        room.release();
      }
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
    }
    if (p.alert() != null) {
      listeners.onAlert(p.alert());
    }
    boolean kept = next.status() == NoticeStatus.IN_FLIGHT && settings.nodeId().equals(c.next().owner());
    if (h != null && kept && isRunning()) {
      timer.add(new HeldNotice(c.next(), h.definition));
    } else if (h != null && kept) {
      // stopping: give the kept retry back rather than leave it leased until the lease runs out
      writer.submit(new OutcomeWriter.Pending(new HeldNotice(c.next(), h.definition),
          Transitions.release(c.next(), clock.instant()), null));
    } else if (h != null) {
      room.release();
    }
  }

  // ================================================================ leases and housekeeping

  private void heartbeat() {
    try {
      List<HeldNotice> held = timer.snapshot();
      held.addAll(delivering.values());
      if (held.isEmpty()) {
        return;
      }
      Set<UUID> ids = new HashSet<>();
      held.forEach(h -> ids.add(h.id()));
      Instant until = clock.instant().plus(settings.lease());
      Set<UUID> kept = store.renewLeases(settings.nodeId(), ids, until);
      for (HeldNotice h : held) {
        if (kept.contains(h.id())) {
          h.leaseUntilMillis = Math.max(h.leaseUntilMillis, until.toEpochMilli());
        } else if (timer.remove(h.id()) != null) {
          room.release(); // cancelled or taken over: do not fire it
        }
      }
    } catch (RuntimeException e) {
      listeners.onEngineError("renew leases", e);
      log.warn("Herald node {}: lease renewal failed: {}", settings.nodeId(), e.getMessage());
    }
  }

  private void countBacklog() {
    try {
      dueBacklog = store.countDue(clock.instant(), settings.maxBacklog() + 1);
    } catch (RuntimeException e) {
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
    } catch (RuntimeException e) {
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
    if (h.definition == null) {
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
    circuits.record(SyncFirst.receiverOf(h.definition), result);
    return pendingOutcome(h, result, started, Duration.ofNanos(System.nanoTime() - t0));
  }

  /** If this node holds the notice in its timer, takes it out; false if it is being delivered or held elsewhere. */
  private boolean takeBackFromTimer(NoticeRow row) {
    if (row.status() != NoticeStatus.IN_FLIGHT) {
      return true;
    }
    if (!settings.nodeId().equals(row.owner())) {
      return row.leaseUntil().isBefore(clock.instant()); // an expired lease is nobody's
    }
    if (timer.remove(row.id()) != null) {
      room.release();
      return true;
    }
    return !delivering.containsKey(row.id());
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

  /** What operators do: search, detail, resend, cancel, confirm, edit, recover. */
  public NoticeOperations operations() {
    return operations;
  }
}
