package dev.herald.server;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The training run of the JVM's AOT cache ({@link AotCacheCommand}): what a server does in its first
 * seconds, done once so that the classes it loads and the methods it runs hot are in the cache. Starts
 * the server on an embedded H2 in a temporary folder and a free loopback port, creates callbacks through
 * {@code POST /api/v1/notices} (batches of 100 and 1,000, due now and in the next seconds) to a receiver
 * in this JVM, reads some back, waits until every callback arrived, and stops. It reads none of the
 * operator's settings (environment, system properties, configuration files): it runs where the server
 * will run, and must not reach its database or its queues.
 */
final class AotTraining {
  /** Callbacks the run creates: enough for the create and delivery paths to be compiled. */
  static final int CALLBACKS = 12_000;

  private AotTraining() {}

  /** Runs the workload of {@code callbacks}; returns the callbacks the receiver got (all, or the run failed). */
  static int run(int callbacks, Duration timeout) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("herald-aot-training");
    Semaphore received = new Semaphore(0); // one permit per callback that arrived
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
    receiver.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    receiver.createContext("/", exchange -> {
      try (InputStream body = exchange.getRequestBody()) {
        body.readAllBytes();
      }
      received.release();
      byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, ok.length);
      exchange.getResponseBody().write(ok);
      exchange.close();
    });
    receiver.start();
    String token = "hrd_training_" + UUID.randomUUID().toString().replace("-", "");
    // Only these settings: the training runs where the server will, often with the production
    // database, intakes and tokens in its environment and configuration files, and must touch none.
    ConfigurableApplicationContext server = HeraldServer.builder().environment(isolated()).run("--server.port=0",
        "--server.address=127.0.0.1", "--herald.server.data-dir=" + dir, "--herald.server.bootstrap-admin-token=" + token,
        "--herald.http.allow=127.0.0.1", "--logging.level.root=WARN", "--spring.main.banner-mode=off",
        "--spring.config.location=optional:classpath:/", "--herald.node-id=aot-training");
    try {
      String api = "http://127.0.0.1:" + server.getEnvironment().getProperty("local.server.port") + "/api/v1";
      String callbackUrl = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback";
      Client client = new Client(api, token);
      int created = 0;
      for (int round = 0; created < callbacks; round++) {
        int batch = Math.min(callbacks - created, round % 4 == 3 ? 1000 : 100);
        String answer = client.post("/notices", batchBody(callbackUrl, batch, round));
        created += batch;
        if (round % 10 == 0) { // the read paths an operator or a client uses
          String id = answer.substring(answer.indexOf("\"id\":\"") + 6, answer.indexOf("\"id\":\"") + 42);
          client.get("/notices/" + id);
          client.post("/notices/lookup", "{\"ids\": [\"" + id + "\"]}");
          client.get("/notices?limit=20");
        }
        Thread.sleep(20); // the workload's pace (a stream, as callers send it), not a wait on anything
      }
      // Waits for the last callback, not a poll: all permits taken on success, none on a timeout.
      return received.tryAcquire(created, timeout.toNanos(), TimeUnit.NANOSECONDS)
          ? created + received.availablePermits() : received.availablePermits();
    } finally {
      server.close();
      receiver.stop(0);
      deleteTree(dir);
    }
  }

  /**
   * An environment without the process's environment variables and system properties: Spring Boot
   * would otherwise bind {@code SPRING_DATASOURCE_URL}, {@code HERALD_*} intakes and the like.
   */
  static org.springframework.core.env.StandardEnvironment isolated() {
    return new org.springframework.core.env.StandardEnvironment() {
      @Override
      protected void customizePropertySources(org.springframework.core.env.MutablePropertySources sources) {
        // none: the command line's arguments and the jar's own defaults only
      }
    };
  }

  private static String batchBody(String url, int n, int round) {
    Instant base = Instant.now().plusMillis(round % 2 == 0 ? 0 : 1500); // due now, and due in a moment
    StringBuilder b = new StringBuilder("{\"notices\": [");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append("{\"callbackUrl\": \"").append(url).append("\", \"payload\": {\"order\": ")
          .append(round * 10_000 + i).append(", \"status\": \"paid\"}, \"fireAt\": \"")
          .append(base.plusMillis(i * 500L / n)).append("\"}");
    }
    return b.append("]}").toString();
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The API as a client calls it; a non-2xx answer fails the training. */
  private record Client(String api, String token, HttpClient http) {
    Client(String api, String token) {
      this(api, token, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }

    String post(String path, String json) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(URI.create(api + path)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    String get(String path) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(URI.create(api + path)).GET());
    }

    private String send(HttpRequest.Builder request) throws IOException, InterruptedException {
      HttpResponse<String> r = http.send(request.header("Authorization", "Bearer " + token)
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() / 100 != 2) {
        throw new UncheckedIOException(new IOException(request.build().uri() + " answered " + r.statusCode() + ": " + r.body()));
      }
      return r.body();
    }
  }
}
