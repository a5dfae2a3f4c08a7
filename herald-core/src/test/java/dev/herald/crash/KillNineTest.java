package dev.herald.crash;

import dev.herald.testsupport.ClassPathSnapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM killed with kill -9 while delivering loses nothing. Each node is a separate process ({@link
 * CrashNode}) on the same H2 files; the test kills it with SIGKILL ({@link Process#destroyForcibly()}
 * on Linux), starts another node on the same files, and checks the deliveries log the handlers
 * wrote: every acknowledged notice delivered, duplicates only from attempts cut short by the kill.
 * The restarted node takes the killed one's notices back at once if it has the same node id, or
 * takes them over once the killed node's heartbeat is older than the node timeout if not.
 */
class KillNineTest {
  /** Notices in the delivery scenarios. */
  private static final int N = 3_000;
  /** Handler delay in the delivery scenarios: with 8 concurrent deliveries, N take about 3 s. */
  private static final long DELIVERY_DELAY_MS = 8;
  /** Kill once at least this many deliveries are in the log (and fewer than N). */
  private static final int KILL_AFTER_DELIVERIES = 300;
  /**
   * CrashNode's node timeout: Herald's default. A node beats every quarter of it; another node takes
   * over its notices once its last heartbeat is this old.
   */
  private static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);
  /**
   * Allowance on the earliest takeover: the heartbeat's own duration and scheduling (a node beats a
   * quarter of the node timeout after its previous beat ended), and the kill's timestamp.
   */
  private static final long EARLIEST_SLACK_MS = 400;
  /**
   * Allowance on the latest first takeover: B's first claim and attempt in a JVM just started (class
   * loading, JIT, the H2 file), the forced log write; a few hundred ms idle, seconds on a loaded machine.
   */
  private static final long LATEST_SLACK_MS = 3_000;
  /** Attempts that may run at once on a node; each may be repeated after the kill. */
  private static final int CONCURRENT = 8;
  /**
   * Duplicates allowed when the handler is slow (8 ms): attempts in flight at the kill, plus outcomes
   * queued for the group commit but not yet written (a few tens at this rate).
   */
  private static final int MAX_DUPLICATES = CONCURRENT + 100;
  private static final Duration SURVIVOR_TIMEOUT = Duration.ofSeconds(120);
  /** A line of the deliveries log: the payload, then the epoch ms the handler was entered. */
  private static final Pattern PAYLOAD = Pattern.compile("\\{\"n\":(\\d+)} (\\d+)");
  private static final Pattern STARTED = Pattern.compile("STARTED \\S+ pid \\d+ at (\\d+)");
  private static final Pattern ACKED = Pattern.compile("ACKED (\\d+)");

  @TempDir Path dir;

  private final List<Node> nodes = new ArrayList<>();
  private long killedAtNanos;
  private long killedAtMillis;

  @AfterEach
  void destroyChildren() throws InterruptedException {
    for (Node n : nodes) {
      if (n.process.isAlive()) {
        n.process.destroyForcibly();
      }
      n.process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  // ------------------------------------------------------------------ scenarios

  @Test
  void killedWhileDeliveringThenRestartedWithTheSameNodeIdLosesNothing() throws Exception {
    Node a = start("A", "node-a", CrashNode.MODE_ENQUEUE, N, DELIVERY_DELAY_MS);
    int killedAt = killMidFlight(a);

    long t0 = System.nanoTime();
    Node b = start("B", "node-a", CrashNode.MODE_DELIVER, N, DELIVERY_DELAY_MS);
    awaitExit(b, a);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

    Deliveries d = readDeliveries();
    report("same node id", d, killedAt, "restarted node finished in " + tookMs + " ms");
    assertNothingLost(d, killedAt, N, a, b);
  }

  @Test
  void killedWhileEnqueueingThenRestartedDeliversEveryAcknowledgedNoticeAndNothingElse() throws Exception {
    int count = 20_000;
    Node a = start("A", "node-a", CrashNode.MODE_ENQUEUE, count, 0);
    // Kill once a few batches are acknowledged (so that deliveries run too), long before the last one.
    int killAfterAcked = 5 * CrashNode.BATCH - 1;
    awaitUntil("A acknowledged index " + killAfterAcked, Duration.ofSeconds(30),
        () -> a.lastAcked() >= killAfterAcked, a);
    a.process.destroyForcibly();
    a.awaitDeath();
    assertThat(a.printed("ENQUEUED"))
        .as("A was to be killed while enqueueing, but it had enqueued everything; raise the count.%s", a.tail())
        .isFalse();
    int lastAcked = a.lastAcked();
    int killedAt = readDeliveries().lines().size();

    Node b = start("B", "node-a", CrashNode.MODE_DELIVER, count, 0);
    awaitExit(b, a);

    Deliveries d = readDeliveries();
    int committed = d.distinct().isEmpty() ? 0 : d.distinct().last() + 1;
    report("kill during enqueue", d, killedAt, "A acknowledged up to index " + lastAcked + " ("
        + (lastAcked + 1) + " notices); committed and delivered: " + committed + " of " + count);
    assertThat(d.malformed()).as("malformed lines in the deliveries log%s", tails(a, b)).isEmpty();
    assertThat(d.distinct())
        .as("indexes delivered that were never enqueued (>= %d)%s", count, tails(a, b))
        .allMatch(i -> i >= 0 && i < count);
    List<Integer> lostAcked = IntStream.rangeClosed(0, lastAcked)
        .filter(i -> !d.distinct().contains(i)).boxed().toList();
    assertThat(lostAcked)
        .as("acknowledged notices (0..%d) never delivered: %d lost, first %s%s", lastAcked, lostAcked.size(),
            lostAcked.stream().limit(20).toList(), tails(a, b))
        .isEmpty();
    // Batches commit one after another, each all or nothing: what survived is a prefix of whole batches.
    assertThat(committed % CrashNode.BATCH)
        .as("delivered indexes end at %d, inside a transaction of %d%s", committed, CrashNode.BATCH, tails(a, b))
        .isZero();
    List<Integer> holes = IntStream.range(0, committed).filter(i -> !d.distinct().contains(i)).boxed().toList();
    assertThat(holes)
        .as("indexes missing below the highest delivered one (%d): first %s%s", committed - 1,
            holes.stream().limit(20).toList(), tails(a, b))
        .isEmpty();
    // No tight bound on duplicates here: with an instant handler, delivered notices wait in the
    // group-commit writer (tens of ms, thousands of deliveries a second) and every one whose outcome was
    // not yet written repeats, not only the attempts running at the kill. Each repeats at most once.
    assertDuplicatesBounded(d, killedAt, killedAt + 1, a, b);
  }

  /**
   * Another node (another node id) takes over the notices of a killed node once the killed node's
   * heartbeat is older than the node timeout, and not before: no earlier than its last heartbeat
   * plus the node timeout (at least three quarters of the timeout after the kill, as it beat every
   * quarter), and, once running, within the node timeout plus a poll interval of the kill.
   */
  @Test
  void anotherNodeTakesOverTheNoticesOfAKilledNodeOnceItsHeartbeatIsStale() throws Exception {
    Node a = start("A", "node-a", CrashNode.MODE_ENQUEUE, N, DELIVERY_DELAY_MS);
    int killedAt = killMidFlight(a);
    long killNanos = killedAtNanos;
    long killMillis = killedAtMillis;
    long timeout = NODE_TIMEOUT.toMillis();

    Node b = start("B", "node-b", CrashNode.MODE_DELIVER, N, DELIVERY_DELAY_MS);
    awaitUntil("B delivered a first notice of A's", NODE_TIMEOUT.multipliedBy(3).plusSeconds(30),
        () -> countLines() > killedAt, b, a);
    long seenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killNanos);
    awaitExit(b, a);
    long totalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killNanos);
    long lastBeat = lastHeartbeat("node-a");

    Deliveries d = readDeliveries();
    List<Long> byB = d.entered().subList(killedAt, d.entered().size());
    long firstMs = byB.stream().mapToLong(t -> t).min().orElse(Long.MAX_VALUE) - killMillis;
    long lastMs = byB.stream().mapToLong(t -> t).max().orElse(Long.MAX_VALUE) - killMillis;
    long bStartedMs = b.startedAt() - killMillis;
    report("other node id", d, killedAt, "node timeout " + timeout + " ms; A's last heartbeat " + (killMillis - lastBeat)
        + " ms before the kill; B started " + bStartedMs + " ms after the kill; B's deliveries of A's notices"
        + " began " + firstMs + " ms after the kill (seen by the test at " + seenMs + " ms) and ended " + lastMs
        + " ms after it; all delivered, B closed " + totalMs + " ms after the kill");
    assertNothingLost(d, killedAt, N, a, b);
    assertThat(killMillis - lastBeat)
        .as("age of A's last heartbeat at the kill (ms; it beats every %d ms)%s", timeout / 4, tails(a, b))
        .isBetween(0L, timeout / 4 + EARLIEST_SLACK_MS);
    assertThat(firstMs)
        .as("B started delivering A's notices %d ms after the kill: A's heartbeat, last written %d ms before the"
            + " kill, was not yet %d ms old%s", firstMs, killMillis - lastBeat, timeout, tails(a, b))
        .isGreaterThanOrEqualTo(lastBeat + timeout - killMillis)
        .isGreaterThanOrEqualTo(timeout - timeout / 4 - EARLIEST_SLACK_MS);
    // B runs only once started (a JVM and the H2 file to open): it takes over then if A's timeout passed already.
    assertThat(firstMs)
        .as("B took over A's notices only %d ms after the kill (B started %d ms after it)%s", firstMs, bStartedMs,
            tails(a, b))
        .isLessThanOrEqualTo(Math.max(timeout, bStartedMs) + CrashNode.POLL_INTERVAL_MS + LATEST_SLACK_MS);
  }

  // ------------------------------------------------------------------ steps

  /** Waits until A has enqueued everything and is delivering, then kills it; returns the log's length then. */
  private int killMidFlight(Node a) throws Exception {
    awaitUntil("A enqueued all and delivered at least " + KILL_AFTER_DELIVERIES, Duration.ofSeconds(30),
        () -> a.printed("ENQUEUED") && countLines() >= KILL_AFTER_DELIVERIES, a);
    killedAtMillis = System.currentTimeMillis();
    killedAtNanos = System.nanoTime();
    a.process.destroyForcibly();
    a.awaitDeath();
    int killedAt = readDeliveries().lines().size();
    assertThat(killedAt)
        .as("A delivered everything before it was killed; slow its handler down.%s", a.tail())
        .isLessThan(N);
    return killedAt;
  }

  private void assertNothingLost(Deliveries d, int killedAt, int count, Node... nodes) {
    assertThat(d.malformed()).as("malformed lines in the deliveries log%s", tails(nodes)).isEmpty();
    assertThat(d.distinct())
        .as("indexes delivered that were never enqueued%s", tails(nodes))
        .allMatch(i -> i >= 0 && i < count);
    List<Integer> lost = IntStream.range(0, count).filter(i -> !d.distinct().contains(i)).boxed().toList();
    assertThat(lost)
        .as("acknowledged notices never delivered: %d lost of %d, first %s%s", lost.size(), count,
            lost.stream().limit(20).toList(), tails(nodes))
        .isEmpty();
    assertDuplicatesBounded(d, killedAt, MAX_DUPLICATES, nodes);
  }

  /**
   * At least once, but only what the kill cut short repeats: each notice at most once by each node,
   * so at most twice, and fewer than {@code maxDuplicates} in all.
   */
  private void assertDuplicatesBounded(Deliveries d, int killedAt, int maxDuplicates, Node... nodes) {
    assertThat(repeats(d.lines().subList(0, killedAt)))
        .as("notices the killed node delivered twice before the kill (index=times)%s", tails(nodes))
        .isEmpty();
    assertThat(repeats(d.lines().subList(killedAt, d.lines().size())))
        .as("notices the surviving node delivered twice itself (index=times)%s", tails(nodes))
        .isEmpty();
    assertThat(d.duplicates())
        .as("duplicates: %d (only attempts in flight or unrecorded at the kill may repeat)%s", d.duplicates(),
            tails(nodes))
        .isLessThan(maxDuplicates);
  }

  private static Map<Integer, Integer> repeats(List<Integer> lines) {
    Map<Integer, Integer> times = new TreeMap<>();
    lines.forEach(i -> times.merge(i, 1, Integer::sum));
    times.values().removeIf(n -> n < 2);
    return times;
  }

  private static void report(String scenario, Deliveries d, int killedAt, String more) {
    System.out.printf("[kill -9: %s] delivered before the kill: %d; distinct delivered: %d; total deliveries: %d;"
            + " duplicates: %d (indexes %s); %s%n", scenario, killedAt, d.distinct().size(), d.lines().size(),
        d.duplicates(), d.times().entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
            .limit(30).toList(), more);
    System.out.flush();
  }

  /**
   * The latest heartbeat (epoch ms) any incarnation of {@code nodeId} wrote, read from the H2 file
   * once no node has it open. A killed node's row stays: only a restart with its node id forgets it.
   */
  private long lastHeartbeat(String nodeId) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:h2:file:" + dir.resolve("herald").toAbsolutePath(), "sa", "");
        java.sql.PreparedStatement ps = c.prepareStatement(
            "SELECT COALESCE(MAX(heartbeat_at), 0) FROM herald_node WHERE node_id = ?")) {
      ps.setString(1, nodeId);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  // ------------------------------------------------------------------ the deliveries log

  private Path logFile() {
    return dir.resolve("deliveries.log");
  }

  /**
   * The deliveries log: indexes in order of delivery, when each attempt's handler was entered (epoch
   * ms), and lines that are not a payload.
   */
  record Deliveries(List<Integer> lines, List<Long> entered, List<String> malformed) {
    TreeSet<Integer> distinct() {
      return new TreeSet<>(lines);
    }

    Map<Integer, Integer> times() {
      Map<Integer, Integer> out = new TreeMap<>();
      lines.forEach(i -> out.merge(i, 1, Integer::sum));
      return out;
    }

    int duplicates() {
      return lines.size() - distinct().size();
    }
  }

  private Deliveries readDeliveries() throws IOException {
    List<Integer> lines = new ArrayList<>();
    List<Long> entered = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    if (Files.exists(logFile())) {
      for (String line : Files.readAllLines(logFile(), StandardCharsets.UTF_8)) {
        Matcher m = PAYLOAD.matcher(line);
        if (m.matches()) {
          lines.add(Integer.parseInt(m.group(1)));
          entered.add(Long.parseLong(m.group(2)));
        } else {
          malformed.add(line);
        }
      }
    }
    return new Deliveries(lines, entered, malformed);
  }

  private int countLines() {
    try {
      if (!Files.exists(logFile())) {
        return 0;
      }
      byte[] bytes = Files.readAllBytes(logFile());
      int n = 0;
      for (byte b : bytes) {
        if (b == '\n') {
          n++;
        }
      }
      return n;
    } catch (IOException e) {
      throw new AssertionError("cannot read " + logFile(), e);
    }
  }

  // ------------------------------------------------------------------ child processes

  /** One CrashNode process; its output (stdout and stderr) is collected on a thread. */
  private final class Node {
    final String name;
    final Process process;
    final List<String> output = new CopyOnWriteArrayList<>();
    final Thread reader;

    Node(String name, Process process) {
      this.name = name;
      this.process = process;
      this.reader = Thread.ofPlatform().daemon().name("crash-node-" + name).start(() -> {
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

    boolean printed(String line) {
      return output.contains(line);
    }

    /** When the node printed STARTED (epoch ms, its clock), or fails. */
    long startedAt() {
      for (String line : output) {
        Matcher m = STARTED.matcher(line);
        if (m.matches()) {
          return Long.parseLong(m.group(1));
        }
      }
      throw new AssertionError("node " + name + " printed no STARTED line" + tail());
    }

    /** The highest index A printed as acknowledged (committed), or -1. */
    int lastAcked() {
      int last = -1;
      for (String line : output) {
        Matcher m = ACKED.matcher(line);
        if (m.matches()) {
          last = Math.max(last, Integer.parseInt(m.group(1)));
        }
      }
      return last;
    }

    /** Waits for the killed process to be gone and its output read to the end. */
    void awaitDeath() throws InterruptedException {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        fail("node %s did not die after kill -9%s", name, tail());
      }
      reader.join(10_000);
      if (!System.getProperty("os.name").startsWith("Windows")) { // destroyForcibly() is SIGKILL on Unix
        assertThat(process.exitValue())
            .as("exit status of node %s killed with SIGKILL (128 + 9)%s", name, tail())
            .isEqualTo(137);
      }
    }

    String tail() {
      List<String> all = List.copyOf(output);
      List<String> last = all.subList(Math.max(0, all.size() - 40), all.size());
      return "\n--- last " + last.size() + " of " + all.size() + " output lines of node " + name + " (pid "
          + process.pid() + (process.isAlive() ? ", alive" : ", exit " + process.exitValue()) + ") ---\n"
          + String.join("\n", last);
    }
  }

  /** The child JVMs' class path, copied once: a build running alongside may recompile target/classes. */
  private static ClassPathSnapshot classPath;

  @BeforeAll
  static void snapshotClassPath() throws Exception {
    classPath = ClassPathSnapshot.take("kill-nine-classes", CrashNode.class, dev.herald.Herald.class);
  }

  @AfterAll
  static void deleteClassPathSnapshot() throws IOException {
    if (classPath != null) {
      classPath.delete();
    }
  }

  private Node start(String name, String nodeId, String mode, int count, long delayMs) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of(java, "-cp", classPath.classPath(),
        "-Dorg.slf4j.simpleLogger.showDateTime=true",
        CrashNode.class.getName(), dir.resolve("herald").toString(), logFile().toString(), nodeId, mode,
        Integer.toString(count), Long.toString(delayMs), Long.toString(NODE_TIMEOUT.toMillis()));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    Node node = new Node(name, p);
    nodes.add(node);
    return node;
  }

  private void awaitExit(Node survivor, Node... others) throws Exception {
    if (!survivor.process.waitFor(SURVIVOR_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      Deliveries d = readDeliveries();
      fail("node %s did not finish delivering within %s: %d distinct of %d delivered%s%s", survivor.name,
          SURVIVOR_TIMEOUT, d.distinct().size(), d.lines().size(), tails(concat(survivor, others)),
          threadDump(survivor) + databaseState(survivor));
    }
    survivor.reader.join(10_000);
    assertThat(survivor.process.exitValue())
        .as("exit status of node %s%s", survivor.name, tails(concat(survivor, others)))
        .isZero();
    assertThat(survivor.printed("DONE")).as("node %s printed DONE%s", survivor.name, survivor.tail()).isTrue();
  }

  /**
   * For the failure message of a node that hangs: kills it (the H2 file allows one process), then
   * lists the node rows and the live notices by owner and status, with their earliest due time and
   * lease end relative to now.
   */
  private String databaseState(Node hanging) {
    hanging.process.destroyForcibly();
    try {
      hanging.process.waitFor(10, TimeUnit.SECONDS);
      StringBuilder sb = new StringBuilder("\n--- database after killing node " + hanging.name + " ---\n");
      long now = System.currentTimeMillis();
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(
          "jdbc:h2:file:" + dir.resolve("herald").toAbsolutePath(), "sa", "")) {
        try (java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT owner, node_id, started_at, heartbeat_at FROM herald_node")) {
          while (rs.next()) {
            sb.append("node ").append(rs.getString(1)).append(" (").append(rs.getString(2)).append("): started ")
                .append(rs.getLong(3) - now).append(" ms, heartbeat ").append(rs.getLong(4) - now).append(" ms\n");
          }
        }
        try (java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT owner, status, COUNT(*), MIN(due_at), MAX(due_at), MIN(lease_until), MAX(lease_until)"
                + " FROM herald_notice GROUP BY owner, status")) {
          while (rs.next()) {
            sb.append("notices owner ").append(rs.getString(1)).append(' ').append(rs.getString(2)).append(": ")
                .append(rs.getLong(3)).append(", due ").append(rs.getLong(4) - now).append("..")
                .append(rs.getLong(5) - now).append(" ms, lease_until ").append(rs.getLong(6) - now).append("..")
                .append(rs.getLong(7) - now).append(" ms\n");
          }
        }
        try (java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT (SELECT COUNT(*) FROM herald_notice), (SELECT COUNT(*) FROM herald_notice_history)")) {
          rs.next();
          sb.append("live ").append(rs.getLong(1)).append(" + finished ").append(rs.getLong(2)).append(" of ")
              .append(N).append(" notices\n");
        }
        // What a claim reads: the due notices in due order, through the index herald_notice_due.
        c.createStatement().execute("SET LOCK_TIMEOUT 1000");
        try (java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT COUNT(*) FROM (SELECT id FROM herald_notice WHERE due_at <= " + now + " ORDER BY due_at LIMIT 500)")) {
          rs.next();
          sb.append("range read on herald_notice_due: ").append(rs.getLong(1)).append(" row(s)\n");
        } catch (java.sql.SQLException e) {
          sb.append("range read on herald_notice_due fails: ").append(e.getMessage().lines().findFirst().orElse(""))
              .append("\n");
        }
      }
      return sb.toString();
    } catch (Exception e) {
      return "\n--- database state unreadable: " + e + " ---";
    }
  }

  /** The threads of a node that hangs (jcmd Thread.print), for the failure message. */
  private static String threadDump(Node node) {
    try {
      Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          Long.toString(node.process.pid()), "Thread.print").redirectErrorStream(true).start();
      String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      jcmd.waitFor(30, TimeUnit.SECONDS);
      return "\n--- threads of node " + node.name + " ---\n" + out;
    } catch (IOException | InterruptedException e) {
      return "\n--- no thread dump of node " + node.name + ": " + e + " ---";
    }
  }

  private static Node[] concat(Node first, Node... more) {
    Node[] all = new Node[more.length + 1];
    all[0] = first;
    System.arraycopy(more, 0, all, 1, more.length);
    return all;
  }

  /** Polls {@code condition}; fails early if {@code watched} dies, showing the output of every node given. */
  private void awaitUntil(String what, Duration timeout, BooleanSupplier condition, Node watched, Node... alsoShow)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (!watched.process.isAlive()) {
        watched.reader.join(5_000);
        if (condition.getAsBoolean()) {
          return;
        }
        fail("node %s died while waiting until %s%s", watched.name, what, tails(concat(watched, alsoShow)));
      }
      if (System.nanoTime() > deadline) {
        fail("timed out after %s waiting until %s (deliveries log: %d lines)%s%s", timeout, what, countLines(),
            tails(concat(watched, alsoShow)), threadDump(watched) + databaseState(watched));
      }
      Thread.sleep(5);
    }
  }

  private static String tails(Node... nodes) {
    StringBuilder sb = new StringBuilder();
    for (Node n : nodes) {
      sb.append(n.tail());
    }
    return sb.toString();
  }
}
