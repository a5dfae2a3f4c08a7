package dev.herald.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code rabbitmq-server} (package {@code rabbitmq-server}) started by the bench on 127.0.0.1
 * with a node, data and config of its own in a temp dir (owned by the {@code rabbitmq} user, as the
 * Debian wrapper runs the node as that user), queue {@code bench} declared durable; stopped (the
 * processes it started) when closed. Its CPU is read from {@code /proc} ({@code beam.smp}).
 */
final class RabbitMq implements Brokers.AmqpBroker {
  static final String BINARY = "/usr/sbin/rabbitmq-server";
  static final String INSTALL = "apt-get update && apt-get install -y rabbitmq-server";
  static final String PROCESS = "beam.smp";

  private final Process process;
  private final int port;
  private final Path dir;
  private volatile long beam = -1;

  private RabbitMq(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** Starts a node; its files go to the system's temp dir (the bench's own is not open to the rabbitmq user). */
  static RabbitMq start() throws Exception {
    if (!Files.isExecutable(Path.of(BINARY))) {
      throw new BenchException("rabbitmq-server not found at " + BINARY + "; install it with: " + INSTALL
          + ", or use --amqp-broker qpid");
    }
    Path dir = Files.createTempDirectory("herald-bench-rabbitmq");
    int port = freePort();
    int dist = freePort();
    Files.createDirectories(dir.resolve("mnesia"));
    Files.createDirectories(dir.resolve("log"));
    Files.writeString(dir.resolve("rabbitmq.conf"), """
        listeners.tcp.default = 127.0.0.1:%d
        loopback_users = none
        """.formatted(port));
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
    try (var files = Files.walk(dir)) {
      for (Path f : files.toList()) {
        Files.setOwner(f, users.lookupPrincipalByName("rabbitmq"));
      }
    }
    ProcessBuilder pb = new ProcessBuilder(BINARY).redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.log").toFile());
    Map<String, String> env = pb.environment();
    env.put("RABBITMQ_NODENAME", "herald-bench-" + port + "@localhost");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(port));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(dist));
    env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
    env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
    env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
    RabbitMq r = new RabbitMq(pb.start(), port, dir);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(r.uri());
      try (Connection c = f.newConnection(); Channel ch = c.createChannel()) {
        ch.queueDeclare("bench", true, false, false, null);
        r.beam = r.process.descendants().filter(h -> h.info().command().orElse("").endsWith("/" + PROCESS))
            .mapToLong(ProcessHandle::pid).findFirst().orElse(-1);
        return r;
      } catch (IOException | java.util.concurrent.TimeoutException notYet) {
        if (!r.process.isAlive() || System.nanoTime() > deadline) {
          r.close();
          throw new BenchException("rabbitmq-server did not start: " + Files.readString(dir.resolve("stdout.log")));
        }
        Thread.sleep(500);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public String uri() {
    return "amqp://guest:guest@127.0.0.1:" + port;
  }

  @Override
  public String describe() {
    return "RabbitMQ (Debian rabbitmq-server on loopback)";
  }

  @Override
  public Map<String, Long> cpu() {
    return BenchDb.cpu(PROCESS, beam);
  }

  /** Stops the node: the processes this started, children first. */
  @Override
  public void close() {
    java.util.List<ProcessHandle> started = process.descendants().toList();
    started.forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      process.waitFor(20, TimeUnit.SECONDS);
      for (ProcessHandle h : started) {
        h.onExit().get(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      started.forEach(ProcessHandle::destroyForcibly);
    }
    BenchDb.deleteTree(dir);
  }
}
