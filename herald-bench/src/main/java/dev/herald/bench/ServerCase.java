package dev.herald.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 15's server cases: the real {@code herald-server.jar} in a child JVM on the bench's database
 * kind (its embedded H2 in a temp dir; on PostgreSQL a schema of its own, embedded or at {@code --pg-url}),
 * callbacks to a stock nginx.
 * <ul>
 *   <li>{@code intake}: notices/s created by {@code POST /api/v1/notices} in batches of 100 and 1,000
 *       ({@code --intake-producers} callers, {@code --intake-duration} s, due in an hour);
 *   <li>{@code lateness}: {@code --rate} callbacks/s for {@code --duration} s, each due {@code --delay} s
 *       after creation, lateness taken from nginx's access log (time of the request minus fireAt).
 * </ul>
 */
final class ServerCase {
  static final String CASE = "server";
  private static final String TOKEN = "bench-admin-token-0123456789-abcdefghijklmnop";
  /** A created notice in the answer: its id and fire time (the bench has no JSON library of its own). */
  private static final Pattern CREATED = Pattern.compile("\"id\":\"([0-9a-f-]{36})\"[^}]*?\"fireAt\":\"([^\"]+)\"");

  private ServerCase() {}

  static void run(Bench.Ctx ctx, BenchDb db, Path tmp) {
    Options o = ctx.o();
    // absolute: an AOT cache is tied to the class path as the JVM was given it (bin/herald-server makes it so)
    Path jar = Path.of("herald-server/target/herald-server.jar").toAbsolutePath();
    if (!Files.exists(jar)) {
      System.out.println("  " + jar + " not found: case skipped. Build it with ./mvnw -q -pl herald-server -am package -DskipTests");
      return;
    }
    Optional<Nginx> started = Nginx.start(tmp, true);
    if (started.isEmpty()) {
      return;
    }
    try (Nginx nginx = started.get(); BenchDb.Space space = db.open(CASE);
        Server server = Server.start(jar, tmp, o.jfrDir, db.kind(), space.serverArgs())) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (int batch : new int[] {100, 1000}) {
        ctx.add(intake(o, server, client, nginx, batch, db.kind()), db);
      }
      ctx.add(lateness(o, server, client, nginx, db.kind()), db);
    } catch (IOException e) {
      throw new BenchException("server case: " + e.getMessage(), e);
    }
  }

  private static Result intake(Options o, Server server, HttpClient client, Nginx nginx, int batch, String dbKind) {
    String body = batchBody(nginx.url(), batch, i -> "\"delay\": \"1h\"");
    AtomicLong created = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long end = System.nanoTime() + (long) (o.intakeSeconds * 1e9);
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < o.intakeProducers; p++) {
      threads.add(Thread.ofVirtual().start(() -> {
        while (System.nanoTime() < end) {
          if (server.post(client, body) != null) {
            created.addAndGet(batch);
          } else {
            failed.incrementAndGet();
          }
        }
      }));
    }
    join(threads);
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("    -> server intake batch %d: %,.0f notices/s%n", batch, created.get() / seconds);
    Result.Builder rb = Result.of(CASE, "herald-server", "intake-batch" + batch, dbKind).setting("batch", batch)
        .setting("callers", o.intakeProducers).metric("seconds", seconds)
        .metric("notices_per_s", created.get() / seconds).metric("failed_requests", failed.get());
    if (failed.get() > 0) {
      rb.failed(failed.get() + " requests failed");
    }
    return rb.build();
  }

  private static Result lateness(Options o, Server server, HttpClient client, Nginx nginx, String dbKind)
      throws IOException {
    int perTick = Math.max(1, o.rate / 10); // one request every 100 ms, fire times spread over the next 100 ms
    long warmTicks = Math.round(o.warmupSeconds * 10); // created and delivered, not counted: the JIT warms up
    long ticks = warmTicks + Math.round(o.durationSeconds * 10);
    Map<String, Long> fireMicros = new ConcurrentHashMap<>();
    AtomicLong failed = new AtomicLong();
    AtomicLong warmCreated = new AtomicLong();
    System.out.printf("  server lateness on " + dbKind + ": %,d callbacks/s for %s s (after %s s not counted), due %s s after"
        + " creation, to nginx%n", o.rate, o.durationSeconds, o.warmupSeconds, o.delaySeconds);
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (long t = 0; t < ticks; t++) {
      long at = start + t * 100_000_000L;
      while (System.nanoTime() < at) {
        sleepQuietly(1);
      }
      Instant base = Instant.now().plusMillis(Math.round(o.delaySeconds * 1000));
      String body = batchBody(nginx.url(), perTick,
          i -> "\"fireAt\": \"" + base.plusNanos(i * 100_000_000L / perTick) + "\"");
      boolean counted = t >= warmTicks;
      threads.add(Thread.ofVirtual().start(() -> {
        String r = server.post(client, body);
        if (r == null) {
          failed.incrementAndGet();
          return;
        }
        Matcher m = CREATED.matcher(r);
        if (!counted) {
          while (m.find()) {
            warmCreated.incrementAndGet();
          }
          return;
        }
        while (m.find()) {
          fireMicros.put(m.group(1), Lateness.micros(Instant.parse(m.group(2))));
        }
      }));
    }
    join(threads);
    long expected = fireMicros.size();
    long deadline = System.nanoTime() + 120_000_000_000L;
    Latencies late = new Latencies();
    long seen = 0;
    while (System.nanoTime() < deadline) {
      seen = Files.exists(nginx.accessLog()) ? Files.lines(nginx.accessLog()).count() : 0;
      if (seen >= expected + warmCreated.get()) {
        break;
      }
      sleepQuietly(500);
    }
    long matched = 0;
    // by second of the stream (fire time since the first fire time): a cold start shows in the first seconds,
    // a server that cannot keep up in the last ones
    long firstFire = fireMicros.values().stream().mapToLong(Long::longValue).min().orElse(0);
    java.util.TreeMap<Long, Latencies> bySecond = new java.util.TreeMap<>();
    for (String line : Files.readAllLines(nginx.accessLog())) {
      String[] f = line.split(" ");
      Long fire = f.length == 2 ? fireMicros.get(f[1]) : null;
      if (fire != null) {
        matched++;
        long micros = Math.round(Double.parseDouble(f[0]) * 1e6) - fire;
        late.recordMicros(micros);
        bySecond.computeIfAbsent((fire - firstFire) / 1_000_000, k -> new Latencies()).recordMicros(micros);
      }
    }
    StringBuilder p99BySecond = new StringBuilder();
    bySecond.forEach((sec, l) -> p99BySecond.append(p99BySecond.isEmpty() ? "" : " ").append(Math.round(l.percentileMillis(99))));
    System.out.println("    -> p99 ms by second of the stream: " + p99BySecond);
    Result.Builder rb = Result.of(CASE, "herald-server", "lateness", dbKind).setting("rate", o.rate)
        .setting("warmup_s", o.warmupSeconds).setting("duration_s", o.durationSeconds).setting("delay_s", o.delaySeconds)
        .setting("server_jvm_args", Objects.requireNonNullElse(System.getenv("HERALD_BENCH_SERVER_JVM_ARGS"), ""))
        .metric("callbacks_created", expected).metric("callbacks_received", matched)
        .metric("create_requests_failed", failed.get())
        .metric("lateness_p50_ms", late.percentileMillis(50)).metric("lateness_p99_ms", late.percentileMillis(99))
        .metric("lateness_max_ms", late.maxMillis()).metric("lateness_p99_ms_by_second", p99BySecond.toString());
    System.out.printf("    -> server lateness: %,d of %,d received, p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", matched,
        expected, late.percentileMillis(50), late.percentileMillis(99), late.maxMillis());
    if (matched < expected) {
      rb.failed((expected - matched) + " callbacks not received within 120 s");
    }
    return rb.build();
  }

  private static String batchBody(String url, int n, java.util.function.IntFunction<String> when) {
    StringBuilder b = new StringBuilder("{\"notices\": [");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append("{\"callbackUrl\": \"").append(url).append("\", \"payload\": {\"i\": ")
          .append(i).append("}, ").append(when.apply(i)).append('}');
    }
    return b.append("]}").toString();
  }

  private static void join(List<Thread> threads) {
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchException("interrupted", e);
      }
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The server jar in a child JVM, on a free port, H2 in a temp dir, loopback callbacks allowed. */
  static final class Server implements AutoCloseable {
    private final Process process;
    private final int port;

    private Server(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    /**
     * With {@code jfrDir}, the server records a JFR profile there ({@code server-<db>.jfr}); {@code dbArgs}
     * point it at a server database (none: its embedded H2 in a temp dir).
     */
    static Server start(Path jar, Path tmp, Path jfrDir, String dbKind, List<String> dbArgs) throws IOException {
      int port;
      try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path dir = Files.createTempDirectory(tmp, "server");
      List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
      if (jfrDir != null) {
        Files.createDirectories(jfrDir);
        command.add("-XX:StartFlightRecording=filename=" + jfrDir.resolve("server-" + dbKind + ".jfr") + ",settings=profile");
      }
      String jvmArgs = System.getenv("HERALD_BENCH_SERVER_JVM_ARGS"); // e.g. an AOT cache: -XX:AOTCache=herald.aot
      if (jvmArgs != null && !jvmArgs.isBlank()) {
        command.addAll(List.of(jvmArgs.strip().split("\\s+")));
      }
      command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port, "--server.address=127.0.0.1", "--herald.server.data-dir=" + dir,
          "--herald.server.bootstrap-admin-token=" + TOKEN, "--herald.http.allow=127.0.0.1",
          "--herald.http.max-concurrency-per-endpoint=64", "--logging.level.root=WARN"));
      command.addAll(dbArgs);
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
      Server server = new Server(p, port);
      HttpClient client = HttpClient.newHttpClient();
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (System.nanoTime() < deadline) {
        try {
          HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(server.url("/api/v1/definitions")))
              .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            return server;
          }
        } catch (IOException notYet) {
          if (!p.isAlive()) {
            throw new BenchException("the server exited: see " + dir.resolve("server.log"));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        sleepQuietly(250);
      }
      server.close();
      throw new BenchException("the server did not answer within 120 s: see " + dir.resolve("server.log"));
    }

    String url(String path) {
      return "http://127.0.0.1:" + port + path;
    }

    /** POST /api/v1/notices; the answer, or null unless 201. */
    String post(HttpClient client, String body) {
      try {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url("/api/v1/notices")))
            .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 201 ? r.body() : null;
      } catch (IOException e) {
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    @Override
    public void close() {
      process.destroy();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
