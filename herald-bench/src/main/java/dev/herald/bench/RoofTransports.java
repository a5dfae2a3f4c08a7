package dev.herald.bench;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP clients the webhook roof compares (issue 22, "an HTTP transport chosen by measurement"):
 * each posts the same signed request ({@link #HEADERS} plus a fresh id, timestamp and signature) and
 * reads the body of the answer, up to 64 KiB, as herald-channel-http does. All are asynchronous;
 * the roof keeps {@code --threads} requests in flight, each completion sending the next.
 *
 * <ul>
 *   <li>{@code jdk}: today's herald-channel-http client: {@code java.net.http.HttpClient}, HTTP/1.1,
 *       a fixed executor of as many threads as processors, and a virtual thread waiting on each
 *       request's future (the baseline every other row is divided by);
 *   <li>{@code jdk-tuned}: the same client as far as it tunes: callbacks instead of virtual threads,
 *       and a direct executor (the client's own selector thread completes the exchange);
 *   <li>{@code jetty}: Jetty 12.1's {@code HttpClient} over HTTP/1.1, one selector;
 *   <li>{@code apache}: Apache HttpClient 5.6's async client (HTTP/1.1, I/O reactor of one thread
 *       per processor), {@code SimpleHttpRequest} in and out;
 *   <li>{@code netty}: Reactor Netty 1.3's {@code HttpClient} (Netty 4.2 NIO), one event loop per processor.
 * </ul>
 */
final class RoofTransports {
  static final List<String> ALL = List.of("jdk", "jdk-tuned", "jetty", "apache", "netty");
  /** Body bytes read at most, as herald-channel-http does. */
  static final int BODY_LIMIT = 64 * 1024;

  private RoofTransports() {}

  /** One client under test. */
  interface Client extends AutoCloseable {
    /**
     * Sends one POST with {@code headers} (name, value, name, value...) and completes with the
     * status, after the body is read; exceptionally on an I/O error.
     */
    CompletableFuture<Integer> post(URI uri, String[] headers, byte[] body);

    /** Whether the roof waits on each request from a virtual thread (today's channel) instead of chaining callbacks. */
    default boolean blocking() {
      return false;
    }

    @Override
    void close();
  }

  static Client create(String name, int maxConnections) {
    int processors = Math.max(2, Runtime.getRuntime().availableProcessors());
    return switch (name) {
      case "jdk" -> new Jdk(Executors.newFixedThreadPool(processors, daemon("roof-jdk")), true);
      case "jdk-tuned" -> new Jdk(null, false);
      case "jetty" -> new Jetty(maxConnections);
      case "apache" -> new Apache(maxConnections, processors);
      case "netty" -> new Netty(maxConnections, processors);
      default -> throw new Options.UsageException("unknown transport '" + name + "'; one of " + ALL);
    };
  }

  private static java.util.concurrent.ThreadFactory daemon(String prefix) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.getAndIncrement());
      t.setDaemon(true);
      return t;
    };
  }

  /** java.net.http, HTTP/1.1, with a fixed pool (today) or a direct executor (tuned). */
  static final class Jdk implements Client {
    private final java.net.http.HttpClient client;
    private final ExecutorService executor;
    private final boolean blocking;

    Jdk(ExecutorService executor, boolean blocking) {
      this.executor = executor;
      this.blocking = blocking;
      this.client = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
          .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
          .executor(executor != null ? executor : Runnable::run).build();
    }

    @Override
    public CompletableFuture<Integer> post(URI uri, String[] headers, byte[] body) {
      HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      for (int i = 0; i < headers.length; i += 2) {
        rb.header(headers[i], headers[i + 1]);
      }
      return client.sendAsync(rb.build(), HttpResponse.BodyHandlers.ofByteArray()).thenApply(HttpResponse::statusCode);
    }

    @Override
    public boolean blocking() {
      return blocking;
    }

    @Override
    public void close() {
      client.shutdownNow();
      if (executor != null) {
        executor.shutdownNow();
      }
    }
  }

  /** Jetty 12.1 HttpClient, HTTP/1.1, one selector thread, its default thread pool. */
  static final class Jetty implements Client {
    private final org.eclipse.jetty.client.HttpClient client;

    Jetty(int maxConnections) {
      org.eclipse.jetty.io.ClientConnector connector = new org.eclipse.jetty.io.ClientConnector();
      connector.setSelectors(1);
      client = new org.eclipse.jetty.client.HttpClient(
          new org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP(connector));
      client.setMaxConnectionsPerDestination(maxConnections);
      client.setFollowRedirects(false);
      client.setUserAgentField(null);
      try {
        client.start();
      } catch (Exception e) {
        throw new BenchException("cannot start Jetty's HttpClient: " + e, e);
      }
    }

    @Override
    public CompletableFuture<Integer> post(URI uri, String[] headers, byte[] body) {
      CompletableFuture<Integer> done = new CompletableFuture<>();
      client.newRequest(uri).method(org.eclipse.jetty.http.HttpMethod.POST)
          .headers(h -> {
            for (int i = 0; i < headers.length; i += 2) {
              h.put(headers[i], headers[i + 1]);
            }
          })
          .body(new org.eclipse.jetty.client.BytesRequestContent(body))
          .timeout(10, TimeUnit.SECONDS)
          .send(new org.eclipse.jetty.client.BufferingResponseListener(BODY_LIMIT) {
            @Override
            public void onComplete(org.eclipse.jetty.client.Result r) {
              if (r.isFailed()) {
                done.completeExceptionally(r.getFailure());
              } else {
                getContent();
                done.complete(r.getResponse().getStatus());
              }
            }
          });
      return done;
    }

    @Override
    public void close() {
      try {
        client.stop();
      } catch (Exception e) {
        throw new BenchException("cannot stop Jetty's HttpClient: " + e, e);
      }
    }
  }

  /** Apache HttpClient 5 async, HTTP/1.1, pooled per route. */
  static final class Apache implements Client {
    private final org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient client;

    Apache(int maxConnections, int ioThreads) {
      var pool = org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder.create()
          .setMaxConnPerRoute(maxConnections).setMaxConnTotal(maxConnections).build();
      client = org.apache.hc.client5.http.impl.async.HttpAsyncClients.custom()
          .setConnectionManager(pool)
          .setIOReactorConfig(org.apache.hc.core5.reactor.IOReactorConfig.custom().setIoThreadCount(ioThreads).build())
          .setVersionPolicy(org.apache.hc.core5.http2.HttpVersionPolicy.FORCE_HTTP_1)
          .disableRedirectHandling().disableAutomaticRetries().disableCookieManagement()
          .build();
      client.start();
    }

    @Override
    public CompletableFuture<Integer> post(URI uri, String[] headers, byte[] body) {
      var rb = org.apache.hc.client5.http.async.methods.SimpleRequestBuilder.post(uri)
          .setBody(body, org.apache.hc.core5.http.ContentType.APPLICATION_JSON);
      for (int i = 0; i < headers.length; i += 2) {
        if (!headers[i].equals("content-type")) {
          rb.addHeader(headers[i], headers[i + 1]);
        }
      }
      CompletableFuture<Integer> done = new CompletableFuture<>();
      client.execute(rb.build(), new org.apache.hc.core5.concurrent.FutureCallback<>() {
        @Override
        public void completed(org.apache.hc.client5.http.async.methods.SimpleHttpResponse r) {
          r.getBodyBytes();
          done.complete(r.getCode());
        }

        @Override
        public void failed(Exception e) {
          done.completeExceptionally(e);
        }

        @Override
        public void cancelled() {
          done.cancel(false);
        }
      });
      return done;
    }

    @Override
    public void close() {
      client.close(org.apache.hc.core5.io.CloseMode.IMMEDIATE);
    }
  }

  /** Reactor Netty HttpClient over Netty 4.2 NIO, one pool per remote address. */
  static final class Netty implements Client {
    private final reactor.netty.http.client.HttpClient client;
    private final reactor.netty.resources.ConnectionProvider pool;
    private final reactor.netty.resources.LoopResources loops;

    Netty(int maxConnections, int threads) {
      pool = reactor.netty.resources.ConnectionProvider.builder("roof").maxConnections(maxConnections)
          .pendingAcquireMaxCount(-1).build();
      loops = reactor.netty.resources.LoopResources.create("roof-netty", threads, true);
      client = reactor.netty.http.client.HttpClient.create(pool).runOn(loops, false).followRedirect(false)
          .responseTimeout(Duration.ofSeconds(10));
    }

    @Override
    public CompletableFuture<Integer> post(URI uri, String[] headers, byte[] body) {
      return client.headers(h -> {
            for (int i = 0; i < headers.length; i += 2) {
              h.set(headers[i], headers[i + 1]);
            }
          })
          .post().uri(uri)
          .send(reactor.core.publisher.Mono.fromSupplier(() -> io.netty.buffer.Unpooled.wrappedBuffer(body)))
          .responseSingle((r, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
              .map(bytes -> r.status().code()))
          .toFuture();
    }

    @Override
    public void close() {
      pool.dispose();
      loops.dispose();
    }
  }
}
