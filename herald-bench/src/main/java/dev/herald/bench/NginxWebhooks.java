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
        ctx.add(roof(o, nginx, client, signer, db.kind()), db);
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

  /** {@code --n} signed POSTs from {@code --threads} virtual threads, one HttpClient, no database. */
  private static Result roof(Options o, Nginx nginx, HttpClient client, Signer signer, String dbKind) {
    System.out.printf("  %s roof: %,d signed POSTs to nginx from %d threads, no database%n", CASE, o.n, o.threads);
    AtomicLong next = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(o.threads);
    long t0 = System.nanoTime();
    for (int t = 0; t < o.threads; t++) {
      Thread.ofVirtual().start(() -> {
        try {
          for (long i = next.getAndIncrement(); i < o.n; i = next.getAndIncrement()) {
            try {
              post(client, signer, nginx.url(), "{\"seq\":" + i + "}");
            } catch (RuntimeException e) {
              failed.incrementAndGet();
            }
          }
        } finally {
          done.countDown();
        }
      });
    }
    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Result.Builder rb = Result.of(CASE, "roof", "webhook-roof", dbKind).setting("n", o.n).setting("threads", o.threads)
        .setting("delivery", "signed HTTP POST with java.net.http.HttpClient (HTTP/1.1), no database")
        .metric("seconds", seconds).metric("deliveries_per_s", (o.n - failed.get()) / seconds)
        .metric("failed_posts", failed.get());
    if (failed.get() > 0) {
      rb.failed(failed.get() + " POSTs failed");
    }
    return rb.build();
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
