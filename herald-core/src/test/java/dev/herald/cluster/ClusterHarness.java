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
   * Three nodes deliver 20,000 notices: half written beforehand without a lease (so the nodes race
   * for them through claims), half enqueued by the nodes while they run (leased at insert, fired
   * after commit). Every notice is delivered, none twice.
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
          "lease", "30000", "delay", "0", "concurrency", "16", "maxHeld", "1000", "claimBatch", "200"));
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
    assertThat(d.repeated()).as("notices delivered twice (none may be: no node died, no lease ran out)").isEmpty();
    assertThat(d.byNode().keySet()).as("every node delivered a share").containsExactlyInAnyOrder("node-a", "node-b", "node-c");
  }

  /**
   * Three nodes with a 5 s lease; one is killed with SIGKILL mid-way. Nothing is lost: the others
   * deliver what it held once its leases expire, and deliver nothing it held before then.
   */
  void aNodeKilledMidWayLosesNothing() throws Exception {
    int total = 6_000;
    long lease = 5_000;
    preload(0, total);
    Map<String, String> opts = Map.of("lease", Long.toString(lease), "delay", "15", "concurrency", "8",
        "maxHeld", "200", "claimBatch", "50");
    start("node-a", opts);
    Node victim = start("node-b", opts);
    start("node-c", opts);
    awaitUntil("1,500 deliveries", 60, () -> deliveries().all().size() >= 1_500);
    long killedAt = System.currentTimeMillis();
    victim.process.destroyForcibly();
    victim.awaitKilled();
    List<Integer> stranded = heldBy("node-b");
    awaitUntil("all " + total + " notices finished", 120, () -> finished() == total && live() == 0);
    long allDoneMs = System.currentTimeMillis() - killedAt;
    stopAll();

    Deliveries d = deliveries();
    long earliestTakeover = killedAt + lease * 2 / 3 - 700; // leases were renewed at most lease/3 before the kill
    List<Delivery> takenOver = d.all().stream()
        .filter(x -> !x.node().equals("node-b") && stranded.contains(x.n())).toList();
    long firstMs = takenOver.stream().mapToLong(Delivery::at).min().orElse(Long.MAX_VALUE) - killedAt;
    long lastMs = takenOver.stream().mapToLong(Delivery::at).max().orElse(Long.MAX_VALUE) - killedAt;
    long byVictim = d.all().stream().filter(x -> x.node().equals("node-b")).count();
    System.out.printf("[cluster %s] kill -9: %d notices, node-b killed after %d deliveries of its own, holding"
            + " %d leases (lease %d ms); the others delivered them %d..%d ms after the kill; all finished %d ms"
            + " after the kill; duplicates %d (redelivered after node-b's leases expired: %s); by node %s%n",
        databaseName(), total, byVictim, stranded.size(), lease, firstMs, lastMs, allDoneMs, d.duplicates(),
        d.repeated().keySet().stream().limit(20).toList(), d.byNode());

    assertThat(d.malformed()).as("malformed log lines").isEmpty();
    assertThat(d.missing(total)).as("notices never delivered (first 20)").isEmpty();
    assertThat(stranded).as("node-b held leases when it was killed").isNotEmpty();
    assertThat(takenOver.stream().map(Delivery::n).distinct().count())
        .as("notices node-b held, delivered by the others").isEqualTo(stranded.size());
    assertThat(firstMs).as("first takeover after the kill (ms)")
        .isGreaterThanOrEqualTo(earliestTakeover - killedAt).isLessThan(lease + 10_000);
    assertThat(d.all().stream().filter(x -> x.node().equals("node-b") && x.at() > killedAt + 100))
        .as("deliveries by node-b after its death").isEmpty();
    for (Map.Entry<Integer, List<Delivery>> e : d.repeated().entrySet()) {
      List<Delivery> times = e.getValue();
      assertThat(times).as("notice %d delivered %s", e.getKey(), times).hasSize(2);
      assertThat(times.get(0).node()).as("notice %d: only node-b's deliveries repeat: %s", e.getKey(), times)
          .isEqualTo("node-b");
      assertThat(times.get(1).at()).as("notice %d redelivered while node-b's lease was valid: %s", e.getKey(), times)
          .isGreaterThanOrEqualTo(earliestTakeover);
    }
  }

  // ------------------------------------------------------------------ the database

  /** Writes notices {@code {"n":i}} for i in [from, to) in one transaction, unleased, as a producer without an engine would. */
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

  /** The indexes of the notices {@code node} holds leased now. */
  List<Integer> heldBy(String node) throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (Connection c = db().getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT payload FROM herald_notice WHERE owner = ? AND status = 'IN_FLIGHT'")) {
      ps.setString(1, node);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String p = rs.getString(1);
          out.add(Integer.parseInt(p.substring(p.indexOf(':') + 1, p.length() - 1)));
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ the deliveries logs

  record Delivery(int n, String node, long at) {}

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
            all.add(new Delivery(Integer.parseInt(parts[0]), parts[1], Long.parseLong(parts[2])));
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
