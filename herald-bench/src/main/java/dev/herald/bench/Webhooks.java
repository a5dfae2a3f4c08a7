package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.sun.net.httpserver.HttpServer;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.channel.http.HttpChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Case 3: webhooks. A fast local HTTP receiver (the JDK's {@code HttpServer} on 127.0.0.1, a virtual
 * thread per request, answering 200 "ok"); Herald delivers through {@code herald-channel-http}
 * ({@link HttpChannel}, private networks allowed for the loopback receiver, as many requests in flight
 * per endpoint as delivery threads); db-scheduler's task POSTs the same JSON with
 * {@code java.net.http.HttpClient} (HTTP/1.1), the plain way to call a webhook from a scheduler.
 *
 * <ul>
 *   <li>{@code burn-down}: deliveries per second of {@code --n} due notices (as case 1);
 *   <li>{@code lateness}: the stream of case 2, lateness measured where it matters, at the receiver:
 *       request arrival minus the fire time (carried in the payload).
 * </ul>
 */
final class Webhooks {
  static final String CASE = "webhooks";

  private Webhooks() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    try (Receiver rx = Receiver.start()) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      Runnable post = () -> rx.post(client, "{\"seq\":-1}");
      for (int r = 0; r < o.repeat; r++) {
        for (String system : o.systems) {
          Result result;
          long before = rx.requests.get();
          try (BenchDb.Space space = db.open(CASE + "-burn-down-" + system)) {
            result = system.equals("herald")
                ? BurnDown.herald(ctx, db, space, o.n, CASE, "burn-down", setup(o, rx))
                : BurnDown.dbScheduler(ctx, db, space, o.n, CASE, "burn-down", post);
          }
          result.metrics().put("requests_received", rx.requests.get() - before);
          ctx.add(result, db);
        }
        for (String system : o.systems) {
          Result result;
          try (BenchDb.Space space = db.open(CASE + "-lateness-" + system)) {
            result = system.equals("herald") ? heraldStream(ctx, db, space, rx) : dbSchedulerStream(ctx, db, space, rx, client);
          }
          ctx.add(result, db);
        }
      }
    }
  }

  private static Systems.Setup setup(Options o, Receiver rx) {
    HttpChannel http = HttpChannel.builder()
        .allowPrivateNetworks(true)
        .maxConcurrencyPerEndpoint(o.threads)
        .build();
    return new Systems.Setup(NoticeDefinition.builder(Rows.DEFINITION).channel(HttpChannel.NAME, rx.url()).build(), http,
        "HTTP POST to a local receiver (herald-channel-http), " + o.threads + " in flight per endpoint");
  }

  private static Result heraldStream(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, Receiver rx) {
    Options o = ctx.o();
    Latencies lateness = rx.measure(Math.round(o.rate * o.warmupSeconds));
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    Systems.Setup setup = setup(o, rx);
    Duration delay = o.delay();
    Stream.Stats stats;
    Hiccups hiccups;
    Map<String, Long> before = db.counters();
    try (Herald herald = Systems.herald(o, db, space.dataSource(), setup, c -> DeliveryResult.delivered(), counter).start()) {
      System.out.printf("  %s herald lateness on %s: %,d/s for %s s (+%s s warm-up), due %s s after creation%n", CASE,
          db.kind(), o.rate, o.durationSeconds, o.warmupSeconds, delay.toMillis() / 1000.0);
      try (Jfr jfr = Jfr.start(o, CASE + "-lateness-herald-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, CASE + " lateness herald");
          Hiccups h = new Hiccups()) {
        hiccups = h;
        stats = Stream.run(CASE + " herald", o.rate, o.warmupSeconds, o.durationSeconds, o.producers, seq -> {
          Instant fire = Instant.now().plus(delay);
          herald.enqueue(NoticeRequest.of(Rows.DEFINITION, payload(seq, fire)).fireAt(fire));
        });
        counter.expect(stats.total() - stats.failures());
        try {
          counter.await(delay.toSeconds() + 61);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      rx.stopMeasuring();
    }
    Result.Builder rb = Result.of(CASE, "herald", "lateness", db.kind()).settings(Systems.heraldSettings(o))
        .setting("delivery", setup.description());
    hiccups.into(rb.metricsView());
    BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
    return Lateness.finish(rb, o, o.rate, o.durationSeconds, stats, lateness, counter.succeeded.get(),
        counter.errors.get());
  }

  private static Result dbSchedulerStream(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, Receiver rx,
      HttpClient client) {
    Options o = ctx.o();
    Latencies lateness = rx.measure(Math.round(o.rate * o.warmupSeconds));
    Rows.createDbSchedulerTable(space.dataSource(), db.kind());
    Systems.DbsCounter counter = new Systems.DbsCounter();
    OneTimeTask<Void> task = Tasks.oneTime(Rows.DBS_TASK).execute((inst, c) -> {
      String id = inst.getId();
      int colon = id.indexOf(':');
      rx.post(client, "{\"seq\":" + id.substring(0, colon) + ",\"fire\":" + id.substring(colon + 1) + "}");
    });
    Scheduler scheduler = Systems.dbScheduler(o, db, space.dataSource(), task, counter);
    Duration delay = o.delay();
    System.out.printf("  %s db-scheduler lateness on %s: %,d/s for %s s (+%s s warm-up), due %s s after creation%n",
        CASE, db.kind(), o.rate, o.durationSeconds, o.warmupSeconds, delay.toMillis() / 1000.0);
    Stream.Stats stats;
    Hiccups hiccups;
    Map<String, Long> before = db.counters();
    scheduler.start();
    try (Jfr jfr = Jfr.start(o, CASE + "-lateness-db-scheduler-" + db.kind());
        WallProfiler wall = WallProfiler.start(o, CASE + " lateness db-scheduler");
        Hiccups h = new Hiccups()) {
      hiccups = h;
      stats = Stream.run(CASE + " db-scheduler", o.rate, o.warmupSeconds, o.durationSeconds, o.producers, seq -> {
        Instant fire = Instant.now().plus(delay);
        scheduler.schedule(task.instance(seq + ":" + Lateness.micros(fire)), fire);
      });
      counter.expect(stats.total() - stats.failures());
      try {
        counter.await(delay.toSeconds() + 61);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } finally {
      scheduler.stop();
      rx.stopMeasuring();
    }
    Result.Builder rb = Result.of(CASE, "db-scheduler", "lateness", db.kind()).settings(Systems.dbsSettings(o, db))
        .setting("delivery", "HTTP POST with java.net.http.HttpClient (HTTP/1.1) from the task");
    hiccups.into(rb.metricsView());
    BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
    return Lateness.finish(rb, o, o.rate, o.durationSeconds, stats, lateness, counter.succeeded.get(), 0);
  }

  static String payload(long seq, Instant fire) {
    return "{\"seq\":" + seq + ",\"fire\":" + Lateness.micros(fire) + "}";
  }

  /** The receiver: answers every POST 200 "ok"; measures lateness of payloads carrying their fire time. */
  static final class Receiver implements AutoCloseable {
    final AtomicLong requests = new AtomicLong();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private volatile Latencies measuring;
    private volatile long measuredFrom;

    private Receiver(HttpServer server) {
      this.server = server;
    }

    static Receiver start() {
      try {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        Receiver rx = new Receiver(server);
        byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
        server.createContext("/hook", exchange -> {
          long now = Lateness.micros(Instant.now());
          byte[] body;
          try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
          }
          rx.requests.incrementAndGet();
          rx.record(new String(body, StandardCharsets.UTF_8), now);
          exchange.sendResponseHeaders(200, ok.length);
          exchange.getResponseBody().write(ok);
          exchange.close();
        });
        server.setExecutor(rx.executor);
        server.start();
        return rx;
      } catch (IOException e) {
        throw new BenchException("cannot start the local HTTP receiver: " + e.getMessage(), e);
      }
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    /** Starts measuring lateness of payloads whose seq is at least {@code from}; returns the distribution. */
    Latencies measure(long from) {
      Latencies l = new Latencies();
      measuredFrom = from;
      measuring = l;
      return l;
    }

    void stopMeasuring() {
      measuring = null;
    }

    private void record(String payload, long nowMicros) {
      Latencies l = measuring;
      int f = payload.indexOf("\"fire\":");
      if (l == null || f < 0) {
        return;
      }
      long seq = Stream.seqOf(payload);
      if (seq < measuredFrom) {
        return;
      }
      long fire = Stream.seqOf(payload.substring(f));
      l.recordMicros(nowMicros - fire);
    }

    /** One POST from a db-scheduler task; a non-2xx answer fails the execution. */
    void post(HttpClient client, String json) {
      try {
        HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create(url()))
            .timeout(Duration.ofSeconds(10))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() / 100 != 2) {
          throw new IllegalStateException("receiver answered " + r.statusCode());
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot POST: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }

    @Override
    public void close() {
      server.stop(0);
      executor.shutdownNow();
    }
  }
}
