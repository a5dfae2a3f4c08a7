package dev.herald.cluster;

import dev.herald.testsupport.ClassPathSnapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link ClusterNode}s as separate JVMs on one database server and reads what they delivered.
 * A subclass starts the server (once per class) and gives each test a fresh database or schema.
 */
abstract class ClusterHarness {
  @TempDir Path dir;
  final List<Node> nodes = new ArrayList<>();

  /** The JDBC URL, user, password and session init SQL of this test's fresh database, for the nodes. */
  abstract String url();

  abstract String user();

  abstract String password();

  abstract String initSql();

  /** A pool on this test's database, for the test itself. */
  abstract DataSource db();

  /** Replaces this test's database (and {@link #db()}) with a fresh one, for the next run of a repeated scenario. */
  abstract void nextDatabase();

  abstract String databaseName();

  @AfterEach
  void destroyNodes() throws InterruptedException {
    for (Node n : nodes) {
      if (n.process.isAlive()) {
        n.process.destroyForcibly();
      }
      n.process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  // ------------------------------------------------------------------ scenarios shared by databases

  /**
   * Three nodes deliver 20,000 notices: half written beforehand without an owner (so the nodes race
   * for them through claims), half enqueued by the nodes while they run (claimed at insert, fired
   * after commit). Every notice is delivered, none twice. The node timeout is long (30 s) so that
   * no heartbeat can lapse on a loaded machine: a lapse is the one way a node that did not die can
   * lose what it holds to another (whose redelivery of an attempt cut short is allowed).
   */
  void threeNodesDeliverTwentyThousandNoticesExactlyOnce() throws Exception {
    int total = 20_000;
    int preloaded = 10_000;
    preload(0, preloaded);
    long t0 = System.currentTimeMillis();
    int share = (total - preloaded + 2) / 3;
    for (int k = 0; k < 3; k++) {
      int from = preloaded + k * share;
      int to = Math.min(total, from + share);
      start("node-" + (char) ('a' + k), Map.of("from", Integer.toString(from), "to", Integer.toString(to),
          "nodeTimeout", "30000", "delay", "0", "concurrency", "16", "maxHeld", "1000", "claimBatch", "200"));
    }
    awaitUntil("all " + total + " notices finished", 180, () -> finished() == total && live() == 0);
    long tookMs = System.currentTimeMillis() - t0;
    stopAll();

    Deliveries d = deliveries();
    System.out.printf("[cluster %s] 3 nodes, %d notices (%d preloaded, %d enqueued by the nodes): delivered %d"
            + " distinct in %d deliveries, duplicates %d, by node %s, all finished in %d ms (%.0f/s)%n",
        databaseName(), total, preloaded, total - preloaded, d.distinct(), d.all().size(), d.duplicates(),
        d.byNode(), tookMs, total * 1000.0 / tookMs);
    assertThat(d.malformed()).as("malformed log lines").isEmpty();
    assertThat(d.missing(total)).as("notices never delivered (first 20)").isEmpty();
    assertThat(lapses()).as("heartbeat lapses (none expected with a 30 s node timeout)").isEmpty();
    assertThat(d.repeated()).as("notices delivered twice (none may be: no node died, no heartbeat lapsed)").isEmpty();
    assertThat(d.byNode().keySet()).as("every node delivered a share").containsExactlyInAnyOrder("node-a", "node-b", "node-c");
  }

  /** Node timeout of the kill -9 scenario: Herald's default. Nodes beat every quarter of it. */
  static final long KILL_NODE_TIMEOUT_MS = 2_000;
  /**
   * Allowance on the earliest takeover for the heartbeat's own duration and scheduling (it beats a
   * quarter of the node timeout after the previous beat ended) and for the kill's timestamp.
   */
  static final long EARLIEST_SLACK_MS = 400;
  /**
   * Allowance on the latest first takeover: claim and fire on a survivor busy with its own backlog,
   * on a machine shared by three node JVMs, the server and the test.
   */
  static final long LATEST_SLACK_MS = 1_000;

  /** What one kill -9 run measured, in ms after the kill. */
  record Failover(int stranded, long firstMs, long lastMs, long lastBeatAgeMs, long allDoneMs) {}

  /**
   * Three nodes with the default node timeout (2 s); one is killed with SIGKILL mid-way. Nothing
   * is lost: the others deliver what it held once its heartbeat is older than the node timeout
   * (and not before), within the node timeout plus a poll interval of the kill. Repeated {@code
   * herald.failover.runs} times (default 1), each on a fresh database, printing the time from the
   * kill to the first and the last delivery of the dead node's notices per run, then p50 and max.
   */
  void aNodeKilledMidWayLosesNothing() throws Exception {
    int runs = Integer.getInteger("herald.failover.runs", 1);
    List<Failover> measured = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      if (run > 1) {
        nextRun();
      }
      Failover f = killOneOfThreeNodes();
      measured.add(f);
      System.out.printf("[failover %s] run %d/%d: node timeout %d ms, poll %d ms; node-b held %d notice(s), its last"
              + " heartbeat %d ms before the kill; first delivery of them by another node %d ms after the kill,"
              + " last %d ms; all finished %d ms after the kill%n", databaseName(), run, runs, KILL_NODE_TIMEOUT_MS,
          ClusterNode.POLL_INTERVAL_MS, f.stranded(), f.lastBeatAgeMs(), f.firstMs(), f.lastMs(), f.allDoneMs());
    }
    System.out.printf("[failover %s] %d run(s), node timeout %d ms: kill -> first delivery of the dead node's"
            + " notices p50 %d ms, max %d ms (min %d); kill -> last p50 %d ms, max %d ms; all runs %s%n",
        databaseName(), runs, KILL_NODE_TIMEOUT_MS, p50(measured, Failover::firstMs), max(measured, Failover::firstMs),
        measured.stream().mapToLong(Failover::firstMs).min().orElse(-1), p50(measured, Failover::lastMs),
        max(measured, Failover::lastMs),
        measured.stream().map(f -> f.firstMs() + ".." + f.lastMs()).toList());
  }

  private static long p50(List<Failover> runs, java.util.function.ToLongFunction<Failover> what) {
    long[] sorted = runs.stream().mapToLong(what).sorted().toArray();
    return sorted.length == 0 ? -1 : sorted[(sorted.length - 1) / 2]; // the lower median
  }

  private static long max(List<Failover> runs, java.util.function.ToLongFunction<Failover> what) {
    return runs.stream().mapToLong(what).max().orElse(-1);
  }

  private Failover killOneOfThreeNodes() throws Exception {
    int total = 6_000;
    long timeout = KILL_NODE_TIMEOUT_MS;
    preload(0, total);
    Map<String, String> opts = Map.of("nodeTimeout", Long.toString(timeout), "delay", "15", "concurrency", "8",
        "maxHeld", "200", "claimBatch", "50");
    start("node-a", opts);
    Node victim = start("node-b", opts);
    start("node-c", opts);
    awaitUntil("1,500 deliveries", 60, () -> deliveries().all().size() >= 1_500);
    long killedAt = System.currentTimeMillis();
    victim.process.destroyForcibly();
    victim.awaitKilled();
    List<Integer> stranded = heldBy("node-b");
    long lastBeat = lastHeartbeat("node-b");
    long lastLeaseUntil = lastLeaseUntil("node-b");
    awaitUntil("all " + total + " notices finished", 120, () -> finished() == total && live() == 0);
    long allDoneMs = System.currentTimeMillis() - killedAt;
    stopAll();

    Deliveries d = deliveries();
    // Nobody may claim node-b's notices until its heartbeat is older than the node timeout; it beat
    // every quarter of it, so its last beat was at most a quarter (plus the beat's own time) before the kill.
    long mayTakeOverFrom = lastBeat + timeout;
    long earliestTakeover = killedAt + timeout - timeout / 4 - EARLIEST_SLACK_MS;
    long latestFirstTakeover = killedAt + timeout + ClusterNode.POLL_INTERVAL_MS + LATEST_SLACK_MS;
    List<Delivery> takenOver = d.all().stream()
        .filter(x -> !x.node().equals("node-b") && stranded.contains(x.n())).toList();
    long firstMs = takenOver.stream().mapToLong(Delivery::at).min().orElse(Long.MAX_VALUE) - killedAt;
    long lastMs = takenOver.stream().mapToLong(Delivery::at).max().orElse(Long.MAX_VALUE) - killedAt;
    long firstEnteredMs = takenOver.stream().mapToLong(Delivery::entered).min().orElse(Long.MAX_VALUE) - killedAt;
    long byVictim = d.all().stream().filter(x -> x.node().equals("node-b")).count();
    System.out.printf("[cluster %s] kill -9: %d notices, node-b killed after %d deliveries of its own, holding"
            + " %d notice(s) (node timeout %d ms; its last heartbeat %d ms before the kill, its latest lease_until"
            + " %d ms after it); the others delivered them %d..%d ms after the kill (first attempt entered at %d ms);"
            + " all finished %d ms after the kill; duplicates %d (redelivered after node-b's heartbeat went stale: %s);"
            + " by node %s; lapses %s%n",
        databaseName(), total, byVictim, stranded.size(), timeout, killedAt - lastBeat, lastLeaseUntil - killedAt,
        firstMs, lastMs, firstEnteredMs, allDoneMs, d.duplicates(),
        d.repeated().keySet().stream().limit(20).toList(), d.byNode(), lapses());

    assertThat(d.malformed()).as("malformed log lines").isEmpty();
    assertThat(d.missing(total)).as("notices never delivered (first 20)").isEmpty();
    assertThat(stranded).as("node-b held notices when it was killed").isNotEmpty();
    assertThat(takenOver.stream().map(Delivery::n).distinct().count())
        .as("notices node-b held, delivered by the others").isEqualTo(stranded.size());
    assertThat(killedAt - lastBeat).as("age of node-b's last heartbeat at the kill (ms; it beats every %d ms)",
        timeout / 4).isLessThanOrEqualTo(timeout / 4 + EARLIEST_SLACK_MS);
    assertThat(firstEnteredMs).as("first attempt by another node of what node-b held, ms after the kill; node-b's"
            + " last heartbeat was %d ms before the kill", killedAt - lastBeat)
        .isGreaterThanOrEqualTo(mayTakeOverFrom - killedAt)
        .isGreaterThanOrEqualTo(earliestTakeover - killedAt);
    assertThat(firstMs).as("first takeover after the kill (ms)").isLessThanOrEqualTo(latestFirstTakeover - killedAt);
    assertThat(d.all().stream().filter(x -> x.node().equals("node-b") && x.at() > killedAt + 100))
        .as("deliveries by node-b after its death").isEmpty();
    for (Map.Entry<Integer, List<Delivery>> e : d.repeated().entrySet()) {
      List<Delivery> times = e.getValue();
      assertThat(times).as("notice %d delivered %s", e.getKey(), times).hasSize(2);
      assertThat(times.get(0).node()).as("notice %d: only node-b's deliveries repeat: %s (heartbeat lapses: %s)",
          e.getKey(), times, lapses()).isEqualTo("node-b");
      assertThat(times.get(1).entered())
          .as("notice %d redelivered while node-b's heartbeat was fresh (last beat at %d): %s", e.getKey(), lastBeat,
              times)
          .isGreaterThanOrEqualTo(mayTakeOverFrom);
    }
    return new Failover(stranded.size(), firstMs, lastMs, killedAt - lastBeat, allDoneMs);
  }

  /**
   * A node paused (SIGSTOP: a stalled VM, a long GC) for longer than the node timeout while it holds
   * notices due soon, then resumed (SIGCONT). The other node takes them over and delivers them while
   * it is paused; the paused node starts nothing after it resumes: its last heartbeat is more than
   * three quarters of the timeout old, so it fences itself, then finds its heartbeat lapsed, drops
   * what it held and carries on under a new incarnation. No notice is delivered twice. Repeated
   * {@code herald.pause.runs} times (default 1), each on a fresh database.
   */
  void aPausedNodeStartsNothingAfterTheTakeover() throws Exception {
    int runs = Integer.getInteger("herald.pause.runs", 1);
    for (int run = 1; run <= runs; run++) {
      if (run > 1) {
        nextRun();
      }
      // 200 notices due 1.5-3 s after node-b enqueues them: none is due yet when it is stopped, so
      // none may be delivered twice (pauseOneOfTwoNodes allows repeats only of attempts under way).
      pauseOneOfTwoNodes("paused node, run " + run + "/" + runs, 200, "1500-3000", 5);
    }
  }

  /**
   * As above, but the pause hits while node-b is delivering: 16 notices due at once, handlers that
   * take 1.5 s, 8 at a time. Nothing can stop the attempts already under way (past the fence check)
   * when the process was stopped: they complete after the resume, after the other node delivered
   * the same notices again (at least once, as after a crash, and their stale outcomes are dropped).
   * Those are the only duplicates; the other 8, waiting for a delivery slot, are not started.
   */
  void aNodePausedMidDeliveryRepeatsOnlyTheAttemptsUnderWay() throws Exception {
    Paused p = pauseOneOfTwoNodes("paused mid-delivery", 16, null, 1_500);
    assertThat(p.startedBeforeStop()).as("attempts under way in node-b when it was stopped").isBetween(0, 8);
    assertThat(p.duplicates()).as("notices delivered twice: the attempts under way at the pause")
        .isEqualTo(p.startedBeforeStop());
  }

  /** What a pause scenario saw: attempts node-b entered before it was stopped, and duplicate deliveries. */
  record Paused(int startedBeforeStop, int duplicates) {}

  /**
   * Two nodes; node-b enqueues {@code count} notices (due {@code fireIn} ms after, or at once), is
   * stopped for 4 s (twice the node timeout) at once, then continued. Checks what holds in every case:
   * all delivered; node-a took over during the pause and not before node-b's heartbeat was stale;
   * node-b started no attempt after the resume; only notices node-b had started before the stop were
   * delivered twice.
   */
  private Paused pauseOneOfTwoNodes(String scenario, int count, String fireIn, long handlerMs) throws Exception {
    long timeout = 2_000;
    long pauseMs = 4_000;
    // A long look-ahead, so that node-b claims every notice it enqueues at insert (they sit in its timer)
    Map<String, String> opts = Map.of("nodeTimeout", Long.toString(timeout), "lookAhead", "5000",
        "delay", Long.toString(handlerMs), "concurrency", "8");
    Node a = start("node-a", opts);
    awaitUntil("node-a started", 60, () -> a.printed("STARTED"));
    Map<String, String> bOpts = with(opts, "from", "0", "to", Integer.toString(count));
    Node b = start("node-b", fireIn == null ? bOpts : with(bOpts, "fireIn", fireIn));
    awaitUntil("node-b enqueued " + count + " notices", 60, () -> b.printed("ENQUEUED"));
    List<String> owners = owners();
    long pausedAt = System.currentTimeMillis();
    signal(b, "STOP");
    long stoppedAt = System.currentTimeMillis(); // node-b is stopped once kill returns: it reads no clock after this
    String token = owners.isEmpty() ? "?" : owners.getFirst();
    Thread.sleep(200); // node-b cannot beat any more: its heartbeat row is as it left it
    long lastBeat = heartbeatOf(token);
    Thread.sleep(Math.max(0, pausedAt + pauseMs - System.currentTimeMillis()));
    long resumedAt = System.currentTimeMillis();
    signal(b, "CONT");
    awaitUntil("all " + count + " notices finished", 60, () -> finished() == count && live() == 0);
    awaitUntil("node-b reported its heartbeat lapsed", 30, () -> b.printed("LAPSED"));
    Thread.sleep(1_000); // room for a late delivery by node-b to show in the log
    Map<Integer, Long> fireAt = fireTimes();
    stopAll();

    Deliveries d = deliveries();
    List<Delivery> byB = d.all().stream().filter(x -> x.node().equals("node-b")).toList();
    List<Delivery> byA = d.all().stream().filter(x -> x.node().equals("node-a")).toList();
    long takeoverStart = byA.stream().mapToLong(Delivery::entered).min().orElse(Long.MAX_VALUE);
    // An attempt node-b dispatched just before the stop may enter its handler (a virtual thread) only
    // after the resume: it was under way all the same. What node-b must not do is start one once it
    // has run again long enough to notice its lapse (its LAPSED line, on its own clock).
    String lapseLine = b.output.stream().filter(l -> l.startsWith("LAPSED ")).findFirst().orElse("LAPSED 0");
    long lapsedAt = Long.parseLong(lapseLine.split(" ")[1]);
    long underWayUntil = Math.min(lapsedAt, resumedAt + 500);
    List<Delivery> startedByBAfterResume = byB.stream().filter(x -> x.entered() >= underWayUntil).toList();
    List<Delivery> byBAfterTakeover = byB.stream().filter(x -> x.at() >= takeoverStart).toList();
    Set<Integer> startedBeforeStop = byB.stream().filter(x -> x.entered() < underWayUntil).map(Delivery::n)
        .collect(Collectors.toSet());
    Map<Integer, List<Delivery>> repeated = d.repeated();
    Map<Integer, List<Delivery>> repeatedNotStartedAtPause = new TreeMap<>(repeated);
    repeatedNotStartedAtPause.keySet().removeAll(startedBeforeStop);
    long dueBeforeStop = fireAt.values().stream().filter(t -> t < stoppedAt).count();
    long firstDue = fireAt.values().stream().mapToLong(t -> t).min().orElse(-1);
    String lapse = b.output.stream().filter(l -> l.startsWith("LAPSED")).findFirst().orElse("-");
    String detail = byB.stream().map(x -> x.n() + " entered " + (x.entered() - pausedAt) + " ms, logged "
            + (x.at() - pausedAt) + " ms after the pause (due " + (fireAt.getOrDefault(x.n(), 0L) - pausedAt) + ")")
        .limit(20).toList().toString();
    System.out.printf("[cluster %s] %s: node-b (%s) held %d notice(s), due %d..%d ms after"
            + " the pause (%d due before it stopped); paused %d ms (kill -STOP took %d ms; node timeout %d ms), its"
            + " last heartbeat %d ms before the pause; node-a's first attempt %d ms after the pause; delivered by"
            + " node-a %d, by node-b %d (started before it stopped %d, after the resume %d; logged after node-a's"
            + " takeover started %d): %s; duplicates %d (%d of notices node-b had not started at the pause);"
            + " node-b: %s (%d ms after the resume)%n",
        databaseName(), scenario, token, owners.size(), firstDue - pausedAt,
        fireAt.values().stream().mapToLong(t -> t).max().orElse(-1) - pausedAt, dueBeforeStop,
        resumedAt - pausedAt, stoppedAt - pausedAt, timeout, pausedAt - lastBeat, takeoverStart - pausedAt,
        byA.size(), byB.size(), startedBeforeStop.size(), startedByBAfterResume.size(), byBAfterTakeover.size(),
        detail, d.duplicates(), repeatedNotStartedAtPause.size(), lapse,
        lapse.startsWith("LAPSED ") ? Long.parseLong(lapse.split(" ")[1]) - resumedAt : -1);

    assertThat(d.malformed()).as("malformed log lines").isEmpty();
    assertThat(d.missing(count)).as("notices never delivered (first 20)").isEmpty();
    assertThat(owners).as("owners of the notices at the pause: all node-b's own incarnation, held in its timer")
        .hasSize(count).allMatch(o -> o.equals(token) && o.startsWith("node-b#"));
    assertThat(takeoverStart).as("node-a's first attempt: not before node-b's heartbeat (at %d) is %d ms old",
        lastBeat, timeout).isGreaterThanOrEqualTo(lastBeat + timeout);
    assertThat(takeoverStart).as("node-a took over during the pause").isLessThan(resumedAt);
    assertThat(startedByBAfterResume).as("attempts node-b started after the resume, under its lapsed incarnation")
        .isEmpty();
    assertThat(byBAfterTakeover).as("deliveries by node-b after node-a's takeover started: only of attempts"
        + " under way when it was stopped").allMatch(x -> x.entered() < underWayUntil);
    assertThat(repeatedNotStartedAtPause).as("notices node-b had not started at the pause, delivered twice").isEmpty();
    assertThat(repeated.values()).as("notices delivered more than twice").allMatch(l -> l.size() == 2);
    return new Paused(startedBeforeStop.size(), d.duplicates());
  }

  /** Sends a signal to a node's process ({@code STOP}, {@code CONT}). */
  static void signal(Node node, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process.pid()))
        .redirectErrorStream(true).start();
    String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kill.waitFor()).as("kill -%s %d: %s", signal, node.process.pid(), out).isZero();
  }

  /** The LAPSED lines the nodes printed (heartbeat lapses), by node. */
  Map<String, List<String>> lapses() {
    Map<String, List<String>> out = new TreeMap<>();
    for (Node n : nodes) {
      List<String> l = n.output.stream().filter(x -> x.startsWith("LAPSED")).toList();
      if (!l.isEmpty()) {
        out.put(n.name, l);
      }
    }
    return out;
  }

  /** Starts the next run of a repeated scenario: no nodes, no logs, a fresh database. */
  void nextRun() throws Exception {
    destroyNodes();
    nodes.clear();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("deliveries-")
          || p.getFileName().toString().equals("stop")).toList()) {
        Files.delete(f);
      }
    }
    nextDatabase();
  }

  // ------------------------------------------------------------------ the database

  /** Writes notices {@code {"n":i}} for i in [from, to) in one transaction, owned by no node, as a producer without an engine would. */
  void preload(int from, int to) throws SQLException {
    try (Herald producer = Herald.builder()
        .dataSource(db())
        .nodeId("producer")
        .define(NoticeDefinition.builder(ClusterNode.DEFINITION).handler("record").retry("200ms").unlimitedAttempts().build())
        .handler("record", ctx -> DeliveryResult.delivered())
        .build();
        Connection c = db().getConnection()) {
      c.setAutoCommit(false);
      for (int i = from; i < to; i++) {
        producer.enqueue(c, NoticeRequest.of(ClusterNode.DEFINITION, "{\"n\":" + i + "}").idempotencyKey("n-" + i));
      }
      c.commit();
    }
  }

  long finished() {
    return count("SELECT COUNT(*) FROM herald_notice_history WHERE status = 'SUCCEEDED'");
  }

  long live() {
    return count("SELECT COUNT(*) FROM herald_notice");
  }

  long count(String sql) {
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1; // the database may be restarting
    }
  }

  /** The indexes of the notices an incarnation of {@code node} holds now (owner {@code node#...}). */
  List<Integer> heldBy(String node) throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT payload FROM herald_notice WHERE owner LIKE ? AND status = 'IN_FLIGHT'")) {
      ps.setString(1, node + "#%");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String p = rs.getString(1);
          out.add(Integer.parseInt(p.substring(p.indexOf(':') + 1, p.length() - 1)));
        }
      }
    }
    return out;
  }

  /** The latest lease_until of what an incarnation of {@code node} holds (epoch ms), or 0. */
  long lastLeaseUntil(String node) throws SQLException {
    return longQuery("SELECT COALESCE(MAX(lease_until), 0) FROM herald_notice WHERE owner LIKE ?", node + "#%");
  }

  /** The latest heartbeat any incarnation of {@code node} wrote (epoch ms), or 0. */
  long lastHeartbeat(String node) throws SQLException {
    return longQuery("SELECT COALESCE(MAX(heartbeat_at), 0) FROM herald_node WHERE node_id = ?", node);
  }

  /** The heartbeat of one incarnation (epoch ms), or 0 if it has no row. */
  long heartbeatOf(String token) throws SQLException {
    return longQuery("SELECT COALESCE(MAX(heartbeat_at), 0) FROM herald_node WHERE owner = ?", token);
  }

  /** When each finished notice was due to fire (epoch ms), by index. */
  Map<Integer, Long> fireTimes() throws SQLException {
    Map<Integer, Long> out = new TreeMap<>();
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT payload, fire_at FROM herald_notice_history"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String p = rs.getString(1);
        out.put(Integer.parseInt(p.substring(p.indexOf(':') + 1, p.length() - 1)), rs.getLong(2));
      }
    }
    return out;
  }

  /** The owner of every live notice, sorted (null for none). */
  List<String> owners() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT owner FROM herald_notice ORDER BY owner"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private long longQuery(String sql, String arg) throws SQLException {
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  // ------------------------------------------------------------------ the deliveries logs

  /** One delivery: the notice's index, the node, when the handler wrote the line and when it was entered. */
  record Delivery(int n, String node, long at, long entered) {}

  record Deliveries(List<Delivery> all, List<String> malformed) {
    Map<Integer, List<Delivery>> byNotice() {
      Map<Integer, List<Delivery>> out = new TreeMap<>();
      for (Delivery d : all) {
        out.computeIfAbsent(d.n(), k -> new ArrayList<>()).add(d);
      }
      out.values().forEach(l -> l.sort(Comparator.comparingLong(Delivery::at)));
      return out;
    }

    int distinct() {
      return byNotice().size();
    }

    int duplicates() {
      return all.size() - distinct();
    }

    Map<Integer, List<Delivery>> repeated() {
      Map<Integer, List<Delivery>> out = new TreeMap<>(byNotice());
      out.values().removeIf(l -> l.size() < 2);
      return out;
    }

    List<Integer> missing(int total) {
      Map<Integer, List<Delivery>> seen = byNotice();
      List<Integer> out = new ArrayList<>();
      for (int i = 0; i < total; i++) {
        if (!seen.containsKey(i)) {
          out.add(i);
        }
      }
      assertThat(seen.keySet()).as("indexes delivered that were never enqueued").allMatch(i -> i >= 0 && i < total);
      return out.subList(0, Math.min(20, out.size())); // the first 20
    }

    Map<String, Long> byNode() {
      return all.stream().collect(Collectors.groupingBy(Delivery::node, TreeMap::new, Collectors.counting()));
    }
  }

  Deliveries deliveries() {
    List<Delivery> all = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("deliveries-")).sorted().toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
          String[] parts = line.split(" ");
          try {
            long at = Long.parseLong(parts[2]);
            all.add(new Delivery(Integer.parseInt(parts[0]), parts[1], at, parts.length > 3 ? Long.parseLong(parts[3]) : at));
          } catch (RuntimeException e) {
            malformed.add(f.getFileName() + ": " + line);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Deliveries(all, malformed);
  }

  // ------------------------------------------------------------------ child processes

  /** One ClusterNode process; its output is collected on a thread. */
  final class Node {
    final String name;
    final Process process;
    final List<String> output = new CopyOnWriteArrayList<>();
    final Thread reader;

    Node(String name, Process process) {
      this.name = name;
      this.process = process;
      this.reader = Thread.ofPlatform().daemon().name("cluster-node-" + name).start(() -> {
        try (BufferedReader r = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            output.add(line);
          }
        } catch (IOException e) {
          output.add("<output unreadable: " + e + ">");
        }
      });
    }

    boolean printed(String prefix) {
      return output.stream().anyMatch(l -> l.startsWith(prefix));
    }

    long countPrinted(String prefix) {
      return output.stream().filter(l -> l.startsWith(prefix)).count();
    }

    void awaitKilled() throws InterruptedException {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        fail("node %s did not die after kill -9%s", name, tail());
      }
      reader.join(10_000);
      assertThat(process.exitValue()).as("exit status of %s killed with SIGKILL%s", name, tail()).isEqualTo(137);
    }

    String tail() {
      List<String> all = List.copyOf(output);
      List<String> last = all.subList(Math.max(0, all.size() - 30), all.size());
      return "\n--- last " + last.size() + " of " + all.size() + " output lines of " + name + " (pid "
          + process.pid() + (process.isAlive() ? ", alive" : ", exit " + process.exitValue()) + ") ---\n"
          + String.join("\n", last);
    }
  }

  Node start(String name, Map<String, String> options) throws IOException {
    Map<String, String> args = new LinkedHashMap<>();
    args.put("url", url());
    args.put("user", user());
    args.put("password", password());
    args.put("initSql", initSql() == null ? "" : initSql());
    args.put("node", name);
    args.put("log", dir.resolve("deliveries-" + name + ".log").toString());
    args.put("stop", dir.resolve("stop").toString());
    args.putAll(options);
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classPath.classPath(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
        "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        ClusterNode.class.getName()));
    args.forEach((k, v) -> command.add(k + "=" + v));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    Node node = new Node(name, p);
    nodes.add(node);
    return node;
  }

  /** Asks every live node to close and waits for each to exit 0 after printing DONE. */
  void stopAll() throws Exception {
    Files.writeString(dir.resolve("stop"), "stop");
    for (Node n : nodes) {
      if (n.process.isAlive() || n.process.exitValue() != 137) {
        if (!n.process.waitFor(60, TimeUnit.SECONDS)) {
          fail("node %s did not stop%s", n.name, tails());
        }
        n.reader.join(10_000);
        assertThat(n.process.exitValue()).as("exit status of %s%s", n.name, n.tail()).isZero();
        assertThat(n.printed("DONE")).as("%s printed DONE%s", n.name, n.tail()).isTrue();
      }
    }
  }

  /** Polls {@code condition} every 20 ms; fails if a node that was not killed dies, or on timeout. */
  void awaitUntil(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      for (Node n : nodes) {
        if (!n.process.isAlive() && n.process.exitValue() != 137) {
          n.reader.join(5_000);
          fail("node %s exited (%d) while waiting until %s%s", n.name, n.process.exitValue(), what, tails());
        }
      }
      if (System.nanoTime() > deadline) {
        Deliveries d = deliveries();
        fail("timed out after %d s waiting until %s: %d distinct delivered, %d finished, %d live%s", seconds, what,
            d.distinct(), finished(), live(), tails());
      }
      Thread.sleep(20);
    }
  }

  String tails() {
    return nodes.stream().map(Node::tail).collect(Collectors.joining());
  }

  // ------------------------------------------------------------------ the children's class path

  private static ClassPathSnapshot classPath;

  /** Copies target/classes and target/test-classes once: a build running alongside may rewrite them. */
  @BeforeAll
  static void snapshotClassPath() throws Exception {
    if (classPath == null) {
      classPath = ClassPathSnapshot.take("cluster-classes", ClusterNode.class, Herald.class);
    }
  }

  @AfterAll
  static void deleteClassPathSnapshot() throws IOException {
    if (classPath != null) {
      classPath.delete();
      classPath = null;
    }
  }

  static Map<String, String> with(Map<String, String> base, String... more) {
    Map<String, String> out = new HashMap<>(base);
    for (int i = 0; i < more.length; i += 2) {
      out.put(more[i], more[i + 1]);
    }
    return out;
  }
}
