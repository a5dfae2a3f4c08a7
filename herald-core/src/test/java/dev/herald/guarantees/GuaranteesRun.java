package dev.herald.guarantees;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.IllegalTransitionException;
import dev.herald.Notice;
import dev.herald.NoticeContext;
import dev.herald.NoticeDetail;
import dev.herald.NoticeEdit;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeQuery;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.faults.FaultyDataSource;
import dev.herald.guarantees.Journal.Origin;
import dev.herald.guarantees.Scenario.Behaviour;
import dev.herald.guarantees.Scenario.Op;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Runs a {@link Scenario} on {@value Scenario#NODES} in-process nodes sharing one database, records
 * it in a {@link Journal}, waits for quiescence and reads every notice's final state.
 */
final class GuaranteesRun {
  /** Quiescence: no live notice left, or no delivery started for this long. */
  private static final long IDLE_MS = 5_000;
  private static final long MAX_QUIESCE_MS = 25_000;
  /**
   * How long the scenario's own calls (enqueues, operators' actions, restarts) may still run after
   * its end. On a machine loaded far beyond the scenario's pace they end late; checking before they
   * ended would read a notice before the enqueue that acknowledged it committed and call it lost.
   */
  private static final long MAX_CALLS_MS = 180_000;

  /** What a run leaves to be checked. */
  /**
   * What a run leaves to be checked: the journal, every notice as stored at the end, when that was
   * read, the wall-clock instant the scenario ended (its faults stopped before), and the faults.
   */
  record Outcome(Journal journal, Map<Integer, NoticeDetail> finals, Instant checkedAt, Instant started,
      Instant scenarioEnd, Map<String, String> faults) {}

  private final Scenario scenario;
  private final Supplier<HikariDataSource> pools;
  private final Journal journal = new Journal();
  private final AtomicReferenceArray<Node> slots = new AtomicReferenceArray<>(Scenario.NODES);
  private final List<Node> incarnations = new ArrayList<>();
  /** Callers (enqueues) and operators (and receivers confirming after an attempt), on threads the faults can name. */
  private final ExecutorService tasks = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("caller-", 0).factory());
  private final ExecutorService operators =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("operator-", 0).factory());
  /** Faults planned and how many times each kind fired, for the summary. */
  private final List<Fired> injected = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** One injected rule and the kind of fault it stands for. */
  record Fired(Scenario.FaultKind kind, FaultyDataSource.Rule rule) {}
  /** Closes killed nodes in the background, and every node at the end. */
  private final ExecutorService closers = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger running = new AtomicInteger();

  GuaranteesRun(Scenario scenario, Supplier<HikariDataSource> pools) {
    this.scenario = scenario;
    this.pools = pools;
  }

  /** One Herald instance: a node id, its pool behind a kill switch, and its life. */
  private final class Node {
    final int slot;
    final int incarnation;
    final String id;
    final String label;
    final HikariDataSource pool = pools.get();
    /** The fault schedule's switch, between the pool and the kill switch. */
    final FaultyDataSource faults = new FaultyDataSource(pool);
    final KillableDataSource db = new KillableDataSource(faults.dataSource());
    /** This node's wall clock: the system's, stepped by the fault schedule. */
    final OffsetClock clock = new OffsetClock();
    /**
     * Callers (enqueues, operator and receiver calls) at once on this node: an application has
     * bounded request threads, and a pool of 16 serves them besides the engine's own connections.
     */
    final Semaphore callers = new Semaphore(8, true);
    /**
     * Receivers confirming, apart from the callers: an operator's cancel waits for a running attempt,
     * and that attempt's receiver may be confirming; from one bounded pool the two would wait for each
     * other until the attempt timed out (an application's thread starvation, not Herald's).
     */
    final Semaphore receivers = new Semaphore(8, true);
    private final ReentrantLock lock = new ReentrantLock();
    private final CountDownLatch dead = new CountDownLatch(1);
    private volatile long killedAt = -1;
    Herald herald;

    Node(int slot, int incarnation) {
      this.slot = slot;
      this.incarnation = incarnation;
      this.id = "node-" + slot;
      this.label = id + "#" + incarnation;
    }

    boolean alive() {
      return killedAt < 0;
    }

    /** The start of a delivery, or -1 if this node is dead: no delivery starts after the kill. */
    long begin() {
      lock.lock();
      try {
        return alive() ? journal.now() : -1;
      } finally {
        lock.unlock();
      }
    }

    /** Now, or the kill instant if the node died meanwhile: a delivery ends when its process does. */
    long end() {
      long now = journal.now();
      long k = killedAt;
      return k >= 0 ? Math.min(now, k) : now;
    }

    /** Waits; false if the node was killed meanwhile. */
    boolean pause(long millis) throws InterruptedException {
      return !dead.await(millis, TimeUnit.MILLISECONDS);
    }

    long kill() {
      lock.lock();
      try {
        killedAt = journal.now();
        db.kill();
      } finally {
        lock.unlock();
      }
      dead.countDown();
      return killedAt;
    }
  }

  Outcome run() throws InterruptedException {
    try {
      for (int s = 0; s < Scenario.NODES; s++) {
        start(s);
      }
      journal.markStart();
      Instant started = Instant.now();
      for (Scenario.Action a : scenario.actions) {
        long wait = a.atMs() * 1_000_000 - journal.now();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        journal.maxLag.accumulateAndGet(journal.now() - a.atMs() * 1_000_000, Math::max);
        switch (a) {
          case Scenario.Enqueue e -> submit(() -> enqueue(e));
          case Scenario.Operate o -> submit(operators, () -> operate(o));
          case Scenario.Kill k -> kill(k.slot());
          case Scenario.Restart r -> submit(() -> start(r.slot()));
          case Scenario.Inject f -> inject(f);
          case Scenario.Pause p -> pause(p);
          case Scenario.ClockStep c -> stepClock(c);
        }
      }
      quiesce(scenario.seconds * 1_000_000_000L);
      journal.event("quiescent", "-", journal.now());
      if (Boolean.getBoolean("herald.guarantees.debug")) {
        try (java.sql.Connection c = pools.get().getConnection();
            java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT n.owner, n.lease_until, COUNT(*),"
                + " (SELECT MAX(h.heartbeat_at) FROM herald_node h WHERE h.owner = n.owner) FROM herald_notice n"
                + " WHERE n.status = 'IN_FLIGHT' GROUP BY n.owner, n.lease_until")) {
          while (rs.next()) {
            System.out.println("DEBUG held " + rs.getString(1) + " lease " + rs.getLong(2) + " n=" + rs.getInt(3)
                + " beat " + rs.getObject(4) + " now " + System.currentTimeMillis());
          }
        } catch (java.sql.SQLException e) {
          System.out.println("DEBUG " + e);
        }
        try (java.sql.Connection c = pools.get().getConnection();
            java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT SESSION_ID, EXECUTING_STATEMENT,"
                + " SESSION_START, STATEMENT_START, BLOCKER_ID, SLEEP_SINCE FROM INFORMATION_SCHEMA.SESSIONS"
                + " WHERE CONTAINS_UNCOMMITTED")) {
          while (rs.next()) {
            System.out.println("DEBUG uncommitted session " + rs.getObject(1) + " stmt=" + rs.getObject(2)
                + " started " + rs.getObject(3) + " stmt at " + rs.getObject(4) + " blocker " + rs.getObject(5)
                + " sleeping since " + rs.getObject(6));
          }
        } catch (java.sql.SQLException e) {
          System.out.println("DEBUG sessions: " + e);
        }
        Thread.getAllStackTraces().forEach((t, st) -> {
          if (java.util.Arrays.stream(st).anyMatch(f -> f.getClassName().contains("Faulty")
              || f.getClassName().contains("Killable") || f.getClassName().contains("Transactions"))) {
            System.out.println("DEBUG thread " + t.getName() + "\n  " + java.util.Arrays.stream(st).limit(25)
                .map(Object::toString).collect(java.util.stream.Collectors.joining("\n  ")));
          }
        });
      }
      Instant checkedAt = Instant.now();
      Map<Integer, NoticeDetail> finals = finals();
      journal.event("read", "-", journal.now());
      return new Outcome(journal, finals, checkedAt, started, started.plusSeconds(scenario.seconds), faultSummary());
    } finally {
      close();
    }
  }

  // ------------------------------------------------------------------ nodes

  private void start(int slot) {
    Node previous = slots.get(slot);
    Node node = new Node(slot, previous == null ? 1 : previous.incarnation + 1);
    Herald.Builder b = Herald.builder()
        .dataSource(node.db.dataSource())
        .clock(node.clock)
        .nodeId(node.id)
        .pollInterval(Duration.ofMillis(200))
        .lookAhead(Duration.ofSeconds(1))
        .nodeTimeout(Duration.ofSeconds(2))
        .claimBatch(100)
        .maxConcurrentDeliveries(8)
        .shutdownTimeout(Duration.ofSeconds(1))
        .random(new Random(scenario.seed + slot))
        .listener(new HeraldListener() {
          @Override
          public void onEngineError(String step, Throwable error) {
            if (step.equals("lapse while delivering")) { // the engine says its liveness budget was exceeded
              journal.event("lapse", node.label, journal.now());
            }
            if (node.alive()) {
              journal.trouble("engine error: " + step.replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<id>"));
            }
          }
        });
    for (Scenario.Definition d : Scenario.DEFINITIONS) {
      b.define(d.definition()).handler(d.name(), ctx -> deliver(node, d.name(), ctx));
    }
    try {
      node.herald = b.build().start();
    } catch (RuntimeException e) {
      node.pool.close();
      throw e;
    }
    synchronized (incarnations) {
      incarnations.add(node);
    }
    slots.set(slot, node);
    if (previous != null) {
      journal.event("restart", node.label, journal.now());
    }
  }

  /** Kills a node as a process kill would, and buries it (transactions rolled back, engine closed) in the background. */
  private void kill(int slot) {
    Node node = slots.get(slot);
    journal.event("kill", node.label, node.kill());
    closers.execute(() -> {
      node.db.bury(); // what the server does when a client dies: its open transactions roll back
      node.pool.close();
      node.herald.close();
    });
  }

  /** Arms a fault in the node now in {@code f.slot()}, if it lives. */
  private void inject(Scenario.Inject f) {
    Node node = slots.get(f.slot());
    if (node == null || !node.alive()) {
      return;
    }
    java.util.function.Predicate<String> thread = t -> t.startsWith(f.thread());
    FaultyDataSource.Rule rule = switch (f.kind()) {
      case POOL_TIMEOUT -> node.faults.poolTimeout(f.thread(), f.times());
      case SLOW_CONNECTION -> node.faults.add(FaultyDataSource.Step.CONNECT, FaultyDataSource.Fault.DELAY, thread,
          sql -> true, f.times(), f.millis());
      case LOST_COMMIT -> node.faults.loseCommitAnswer(f.thread(), f.times());
      case FAILED_STATEMENT -> node.faults.breakStatements(thread, f.sql(), f.times());
      case OPERATOR_HALF_WAY -> node.faults.add(FaultyDataSource.Step.STATEMENT, FaultyDataSource.Fault.BREAK, thread,
          sql -> !sql.stripLeading().toUpperCase(java.util.Locale.ROOT).startsWith("SELECT") && sql.contains(f.sql()),
          f.times(), 0);
      case LATE_HEARTBEAT -> node.faults.lateCommitAnswers(f.thread(), f.sql(), f.millis(), f.times());
      case SLOW_HEARTBEAT -> node.faults.slowStatements(f.thread(), f.sql(), f.millis(), f.times());
      case CLOCK_STEP, PAUSE -> throw new IllegalArgumentException(f.kind() + " is not a data source rule");
    };
    injected.add(new Fired(f.kind(), rule));
  }

  private void pause(Scenario.Pause p) {
    Node node = slots.get(p.slot());
    if (node != null && node.alive()) {
      node.faults.stall(p.millis());
      journal.event("pause " + p.millis() + "ms", node.label, journal.now());
    }
  }

  private void stepClock(Scenario.ClockStep c) {
    Node node = slots.get(c.slot());
    if (node != null && node.alive()) {
      node.clock.offsetMillis = c.offsetMs();
      journal.trouble("clock step");
    }
  }

  /** Faults by kind: how many rules fired at least once / were armed, and the times they fired. */
  Map<String, String> faultSummary() {
    Map<String, String> out = new TreeMap<>();
    injected.stream().collect(java.util.stream.Collectors.groupingBy(f -> f.kind().name(), TreeMap::new,
        java.util.stream.Collectors.toList())).forEach((kind, fs) -> out.put(kind,
            fs.stream().filter(f -> f.rule().fired() > 0).count() + "/" + fs.size() + " armed, fired "
                + fs.stream().mapToInt(f -> f.rule().fired()).sum()));
    long steps = journal.troubles.getOrDefault("clock step", 0);
    if (steps > 0) {
      out.put("CLOCK_STEP", steps + " steps");
    }
    long pauses = journal.events.stream().filter(e -> e.what().startsWith("pause")).count();
    if (pauses > 0) {
      out.put("PAUSE", pauses + " pause(s)");
    }
    return out;
  }

  /** The live node in {@code slot}, else the next live one; null if none. */
  private Node live(int slot) {
    for (int i = 0; i < Scenario.NODES; i++) {
      Node n = slots.get(Math.floorMod(slot + i, Scenario.NODES));
      if (n != null && n.alive()) {
        return n;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ receivers

  private DeliveryResult deliver(Node node, String definition, NoticeContext ctx) throws Exception {
    long start = node.begin();
    if (start < 0) {
      throw new IllegalStateException("node " + node.label + " is dead");
    }
    int[] nv = Scenario.parsePayload(ctx.payload());
    UUID id = ctx.notice().id();
    Behaviour b = scenario.behaviour(definition, nv[0], ctx.attempt());
    boolean alive = false;
    try {
      if (b.confirmation() == Scenario.Confirmation.DURING) {
        alive = node.pause(b.latencyMs() / 2);
        if (alive) {
          confirmByReceiver(node, nv[0], id, ctx.attempt(), Origin.RECEIVER_DURING);
          alive = node.pause(b.latencyMs() - b.latencyMs() / 2);
        }
      } else {
        alive = node.pause(b.latencyMs());
      }
      if (alive && b.result() == Scenario.Result.THROW) {
        throw new IllegalStateException("receiver failed (scenario)");
      }
    } finally {
      journal.delivery(new Journal.Delivery(id, nv[0], nv[1], node.label, ctx.attempt(), start, node.end(),
          alive ? b.result().name() : "CUT", !alive));
    }
    if (!alive) {
      throw new IllegalStateException("node " + node.label + " died during the attempt");
    }
    if (b.confirmation() == Scenario.Confirmation.AFTER) {
      submit(operators, () -> {
        Thread.sleep(b.confirmDelayMs());
        // Until the outcome is recorded the notice is IN_FLIGHT: try again for a while.
        for (int i = 0; i < 20; i++) {
          Journal.Call c = confirmByReceiver(node, nv[0], id, ctx.attempt(), Origin.RECEIVER_AFTER);
          if (c == null || !(c.refused() && c.from() == NoticeStatus.IN_FLIGHT)) {
            return;
          }
          Thread.sleep(100);
        }
      });
    }
    return switch (b.result()) {
      case DELIVER -> DeliveryResult.delivered();
      case RETRY -> DeliveryResult.retry("receiver asked for a retry (scenario)");
      case FAIL -> DeliveryResult.fail("receiver refused for good (scenario)");
      case THROW -> throw new AssertionError("unreachable");
    };
  }

  /** The receiver confirms through another node than the one delivering. */
  private Journal.Call confirmByReceiver(Node deliverer, int n, UUID id, int attempt, Origin origin) {
    Node via = live(deliverer.slot + 1);
    return via == null ? null : call(Op.CONFIRM, origin, n, id, via, 0, attempt, () -> via.herald.operations().confirm(id));
  }

  // ------------------------------------------------------------------ callers and operators

  private void enqueue(Scenario.Enqueue e) throws InterruptedException {
    List<NoticeRequest> requests = e.notices().stream()
        .map(p -> NoticeRequest.of(p.definition(), Scenario.payload(p.n(), 0))
            .orderingKey(Scenario.definition(p.definition()).definition().ordering().ordered()
                ? Scenario.orderingKey(p.n()) : null)
            .idempotencyKey("g-" + p.n())
            .delay(Duration.ofMillis(p.delayMs())))
        .toList();
    // A failed enqueue (its node killed) is repeated on another node: the idempotency keys make the
    // repeat return the notices if the first one committed after all.
    for (int attempt = 0; attempt < 10; attempt++) {
      Node node = live(e.slot() + attempt);
      if (node == null) {
        return;
      }
      node.callers.acquire();
      try {
        List<Notice> written = switch (attempt == 0 ? e.mode() : Scenario.Mode.OWN) {
          case OWN -> node.herald.enqueueAll(requests);
          case TRANSACTION -> node.herald.inTransaction(tx -> tx.enqueueAll(requests));
          case CONNECTION -> {
            try (Connection c = node.herald.dataSource().getConnection()) {
              c.setAutoCommit(false);
              List<Notice> out = new ArrayList<>();
              for (NoticeRequest r : requests) {
                out.add(node.herald.enqueue(c, r));
              }
              c.commit();
              yield out;
            }
          }
        };
        for (int i = 0; i < written.size(); i++) {
          journal.enqueued(e.notices().get(i).n(), written.get(i).id());
        }
        journal.slowestEnqueue.accumulateAndGet(journal.now() - e.atMs() * 1_000_000, Math::max);
        return;
      } catch (Exception ex) {
        journal.trouble("enqueue failed" + (node.alive() ? ": " : " on a killed node: ") + ex.getClass().getSimpleName());
      } finally {
        node.callers.release();
      }
      Thread.sleep(100);
    }
  }

  private void operate(Scenario.Operate o) throws InterruptedException {
    UUID id = null;
    for (int i = 0; i < 150 && (id = journal.ids.get(o.n())) == null; i++) {
      Thread.sleep(20); // its enqueue is still running
    }
    Node node = live(o.slot());
    if (id == null || node == null) {
      journal.trouble(id == null ? o.op() + " not made: notice not enqueued in time" : o.op() + " not made: no live node");
      return;
    }
    UUID target = id;
    call(o.op(), Origin.OPERATOR, o.n(), id, node, o.version(), 0, () -> switch (o.op()) {
      case CANCEL -> node.herald.operations().cancel(target);
      case EDIT -> node.herald.operations().edit(target, NoticeEdit.payload(Scenario.payload(o.n(), o.version())));
      case RESEND -> node.herald.operations().resend(target);
      case CONFIRM -> node.herald.operations().confirm(target);
    });
  }

  private Journal.Call call(Op op, Origin origin, int n, UUID id, Node node, int version, int attempt,
      Supplier<Notice> action) {
    Semaphore permits = origin == Origin.OPERATOR ? node.callers : node.receivers;
    permits.acquireUninterruptibly();
    long start = journal.now();
    Journal.Call c;
    try {
      Notice result = action.get();
      c = new Journal.Call(op, origin, n, id, node.label, version, attempt, start, journal.now(), result.status(),
          null, false, null);
    } catch (RuntimeException e) {
      // A refusal changed nothing; any other failure (a lost connection, say) may have applied.
      boolean refused = e instanceof IllegalTransitionException || e instanceof NoticeNotFoundException;
      c = new Journal.Call(op, origin, n, id, node.label, version, attempt, start, journal.now(), null,
          e.getClass().getSimpleName() + ": " + e.getMessage(), refused,
          e instanceof IllegalTransitionException ite ? ite.from() : null);
    } finally {
      permits.release();
    }
    journal.call(c);
    return c;
  }

  private interface Task {
    void run() throws Exception;
  }

  private void submit(Task task) {
    submit(tasks, task);
  }

  private void submit(ExecutorService executor, Task task) {
    running.incrementAndGet();
    try {
      executor.execute(() -> {
        try {
          task.run();
        } catch (Exception e) {
          System.err.println("guarantees task failed: " + e);
        } finally {
          running.decrementAndGet();
        }
      });
    } catch (RuntimeException rejected) {
      running.decrementAndGet();
    }
  }

  // ------------------------------------------------------------------ the end

  /**
   * Waits past the scenario's end until no notice is live and no task runs, or until nothing was
   * delivered for {@link #IDLE_MS}, but at most {@link #MAX_QUIESCE_MS}.
   */
  private void quiesce(long scenarioEnd) throws InterruptedException {
    while (journal.now() < scenarioEnd) {
      Thread.sleep(100);
    }
    long callsDeadline = journal.now() + MAX_CALLS_MS * 1_000_000;
    if (running.get() > 0) {
      journal.event("calls still running", String.valueOf(running.get()), journal.now());
    }
    while (running.get() > 0 && journal.now() < callsDeadline) {
      Thread.sleep(100);
    }
    long deadline = journal.now() + MAX_QUIESCE_MS * 1_000_000;
    int seen = -1;
    long idleSince = journal.now();
    while (journal.now() < deadline) {
      // Tasks first: one that ends while the query runs (a resend, say) may have made a notice live again.
      boolean busy = running.get() > 0;
      boolean anyLive = !live(0).herald.operations().query(NoticeQuery.all().statuses(NoticeStatus.PENDING,
          NoticeStatus.IN_FLIGHT, NoticeStatus.FAILED, NoticeStatus.AWAITING_CONFIRM).page(0, 1)).items().isEmpty();
      if (!busy && !anyLive) {
        return;
      }
      int delivered = journal.deliveries.size();
      if (delivered != seen || running.get() > 0) {
        seen = delivered;
        idleSince = journal.now();
      } else if (journal.now() - idleSince > IDLE_MS * 1_000_000) {
        return;
      }
      Thread.sleep(200);
    }
  }

  /** Every notice the journal knows, as stored now. */
  private Map<Integer, NoticeDetail> finals() {
    Map<Integer, UUID> known = new TreeMap<>(journal.ids);
    journal.deliveries.forEach(d -> known.putIfAbsent(d.n(), d.id()));
    Map<Integer, NoticeDetail> out = new TreeMap<>();
    known.forEach((n, id) -> live(0).herald.operations().find(id).ifPresent(d -> out.put(n, d)));
    return out;
  }

  /** Closes every node; bounded, so that a wedged node is reported instead of hanging the run. */
  private void close() throws InterruptedException {
    tasks.shutdown();
    operators.shutdown();
    tasks.awaitTermination(10, TimeUnit.SECONDS);
    operators.awaitTermination(10, TimeUnit.SECONDS);
    synchronized (incarnations) {
      incarnations.stream().filter(Node::alive).forEach(n -> closers.execute(() -> {
        n.herald.close();
        n.pool.close();
      }));
    }
    closers.shutdown();
    if (!closers.awaitTermination(60, TimeUnit.SECONDS)) {
      System.out.println("WARNING: nodes still closing after 60 s; left behind");
    }
  }

  /** The system's wall clock, set off by the fault schedule's clock steps. */
  static final class OffsetClock extends java.time.Clock {
    volatile long offsetMillis;

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException("UTC only");
    }

    @Override
    public long millis() {
      return System.currentTimeMillis() + offsetMillis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }
  }
}
