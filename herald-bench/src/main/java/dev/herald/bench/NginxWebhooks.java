package dev.herald.bench;

import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Issue 15's webhook cases against a stock nginx on loopback ({@link Nginx}): burn-down of {@code --n}
 * due webhooks by Herald ({@code herald-channel-http}, signed) and by db-scheduler (its task POSTs the
 * same signed request with {@code java.net.http.HttpClient}), and the {@code webhook-roof}: the same
 * HttpClient posting the same signed requests to the same nginx from {@code --threads} threads, with no
 * database at all. Herald's target: 3x db-scheduler and half the roof.
 */
final class NginxWebhooks {
  static final String CASE = "webhooks-nginx";
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  private NginxWebhooks() {}

  static void run(Bench.Ctx ctx, BenchDb db, Path tmp) {
    Options o = ctx.o();
    Optional<Nginx> started = Nginx.start(tmp);
    if (started.isEmpty()) {
      return;
    }
    try (Nginx nginx = started.get()) {
      // The client both the roof and db-scheduler's task post with: HTTP/1.1 and a small fixed executor,
      // as herald-channel-http sets it up (the JDK's default cached pool costs 2-4x the CPU per request).
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "roof-http-client");
            t.setDaemon(true);
            return t;
          })).build();
      Signer signer = new Signer(SECRET);
      for (int r = 0; r < o.repeat; r++) {
        for (String transport : o.transports) {
          ctx.add(roof(o, nginx, transport, signer, db.kind()), db);
        }
        if (o.systems.contains("herald")) { // the other half of the channel's bound, in the same run
          try (BenchDb.Space space = db.open(CASE + "-local")) {
            ctx.add(BurnDown.herald(ctx, db, space, o.n, CASE, "local"), db);
          }
        }
        for (String system : o.systems) {
          Result result;
          try (BenchDb.Space space = db.open(CASE + "-burn-down-" + system)) {
            result = system.equals("herald")
                ? BurnDown.herald(ctx, db, space, o.n, CASE, "burn-down", setup(o, nginx))
                : BurnDown.dbScheduler(ctx, db, space, o.n, CASE, "burn-down",
                    () -> post(client, signer, nginx.url(), "{\"seq\":-1}"));
          }
          ctx.add(result, db);
        }
      }
    }
  }

  private static Systems.Setup setup(Options o, Nginx nginx) {
    HttpChannel http = HttpChannel.builder().allowPrivateNetworks(true).maxConcurrencyPerEndpoint(o.threads).build();
    return new Systems.Setup(NoticeDefinition.builder(Rows.DEFINITION).channel(HttpChannel.NAME, nginx.url())
        .option("secrets", SECRET).build(), http,
        "signed HTTP POST to nginx (herald-channel-http), " + o.threads + " in flight per endpoint");
  }

  /**
   * {@code --n} signed POSTs with one of {@link RoofTransports}, {@code --threads} in flight, no database:
   * requests/s and the CPU per request of this JVM and of nginx.
   */
  private static Result roof(Options o, Nginx nginx, String transport, Signer signer, String dbKind) {
    System.out.printf("  %s roof (%s): %,d signed POSTs to nginx, %d in flight, no database%n", CASE, transport, o.n,
        o.threads);
    URI uri = URI.create(nginx.url());
    AtomicLong next = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong resent = new AtomicLong();
    CountDownLatch done = new CountDownLatch(o.threads);
    java.util.Map<String, Long> before;
    long t0;
    try (RoofTransports.Client client = RoofTransports.create(transport, o.threads)) {
      // a warm-up of the client (its JIT-compiled code) and its connections, not counted
      warmUp(client, uri, signer, o.jitWarmup);
      before = BenchDb.cpu("nginx");
      t0 = System.nanoTime();
      for (int t = 0; t < o.threads; t++) {
        if (client.blocking()) {
          Thread.ofVirtual().start(() -> {
            try {
              for (long i = next.getAndIncrement(); i < o.n; i = next.getAndIncrement()) {
                try {
                  int status = sendOrResend(client, uri, signer, i, resent).join();
                  if (status / 100 != 2) {
                    failed.incrementAndGet();
                  }
                } catch (RuntimeException e) {
                  failed.incrementAndGet();
                }
              }
            } finally {
              done.countDown();
            }
          });
        } else {
          chain(client, uri, signer, o.n, next, failed, resent, done);
        }
      }
      try {
        if (!done.await(o.timeoutSeconds, java.util.concurrent.TimeUnit.SECONDS)) {
          throw new BenchException("the " + transport + " roof did not finish within " + o.timeoutSeconds + " s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchException("interrupted", e);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    java.util.Map<String, Long> after = BenchDb.cpu("nginx");
    Result.Builder rb = Result.of(CASE, "roof", "roof-" + transport, dbKind).setting("n", o.n)
        .setting("threads", o.threads).setting("transport", transport)
        .setting("delivery", "signed HTTP POST, HTTP/1.1, " + transport + " (RoofTransports), no database")
        .metric("seconds", seconds).metric("deliveries_per_s", (o.n - failed.get()) / seconds)
        .metric("failed_posts", failed.get()).metric("resent_posts", resent.get());
    // BenchDb.cpu counts the named local processes' CPU as "db_cpu_ms"; here they are nginx's
    Long nginxBefore = before.remove("db_cpu_ms");
    Long nginxAfter = after.remove("db_cpu_ms");
    BenchDb.perDelivery(rb, before, after, o.n);
    if (nginxBefore != null && nginxAfter != null) {
      rb.metric("nginx_cpu_us_per_request", (nginxAfter - nginxBefore) * 1000.0 / o.n);
    }
    if (failed.get() > 0) {
      rb.failed(failed.get() + " POSTs failed");
    }
    return rb.build();
  }

  private static void warmUp(RoofTransports.Client client, URI uri, Signer signer, int n) {
    AtomicLong next = new AtomicLong();
    CountDownLatch done = new CountDownLatch(8);
    for (int t = 0; t < 8; t++) {
      chain(client, uri, signer, n, next, new AtomicLong(), new AtomicLong(), done);
    }
    try {
      done.await(60, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }

  /** Sends request after request until {@code n} are taken, each from the previous one's completion. */
  private static void chain(RoofTransports.Client client, URI uri, Signer signer, long n, AtomicLong next,
      AtomicLong failed, AtomicLong resent, CountDownLatch done) {
    long i = next.getAndIncrement();
    if (i >= n) {
      done.countDown();
      return;
    }
    sendOrResend(client, uri, signer, i, resent).whenComplete((status, e) -> {
      if (e != null || status / 100 != 2) {
        failed.incrementAndGet();
      }
      chain(client, uri, signer, n, next, failed, resent, done);
    });
  }

  /**
   * One signed POST; one that fails with an I/O error, as one does on a kept-alive connection nginx
   * has just closed (after its 1,000 requests), is sent once more, as Herald resends those.
   */
  private static java.util.concurrent.CompletableFuture<Integer> sendOrResend(RoofTransports.Client client, URI uri,
      Signer signer, long i, AtomicLong resent) {
    byte[] body = ("{\"seq\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    return signed(client, uri, signer, body).handle((status, e) -> {
      if (e == null) {
        return java.util.concurrent.CompletableFuture.completedFuture(status);
      }
      resent.incrementAndGet();
      return signed(client, uri, signer, body);
    }).thenCompose(f -> f);
  }

  private static java.util.concurrent.CompletableFuture<Integer> signed(RoofTransports.Client client, URI uri,
      Signer signer, byte[] body) {
    String id = UUID.randomUUID().toString();
    long ts = System.currentTimeMillis() / 1000;
    return client.post(uri, new String[] {"content-type", "application/json", "user-agent", "Herald-Webhooks/1",
        "webhook-id", id, "webhook-timestamp", Long.toString(ts), "webhook-signature", signer.sign(id, ts, body),
        "herald-attempt", "1"}, body);
  }

  /**
   * One signed POST (Standard Webhooks headers, as Herald sends them); a non-2xx answer throws. A POST
   * that fails with an I/O error, as one does on a kept-alive connection nginx has just closed (after its
   * 1,000 requests), is sent once more: Herald resends those too.
   */
  static void post(HttpClient client, Signer signer, String url, String json) {
    try {
      postOnce(client, signer, url, json);
    } catch (IllegalStateException e) {
      if (!(e.getCause() instanceof java.io.IOException)) {
        throw e;
      }
      postOnce(client, signer, url, json);
    }
  }

  private static void postOnce(HttpClient client, Signer signer, String url, String json) {
    String id = UUID.randomUUID().toString();
    long ts = System.currentTimeMillis() / 1000;
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    try {
      HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
          .header("content-type", "application/json").header("webhook-id", id)
          .header("webhook-timestamp", Long.toString(ts)).header("webhook-signature", signer.sign(id, ts, body))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() / 100 != 2) {
        throw new IllegalStateException("nginx answered " + r.statusCode());
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot POST: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Standard Webhooks v1 signatures with one whsec_ secret. */
  static final class Signer {
    private final SecretKeySpec key;

    Signer(String secret) {
      this.key = new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256");
    }

    String sign(String id, long ts, byte[] body) {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(key);
        mac.update((id + "." + ts + ".").getBytes(StandardCharsets.UTF_8));
        return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
