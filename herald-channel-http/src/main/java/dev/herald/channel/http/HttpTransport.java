package dev.herald.channel.http;

import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.UnknownHostException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.routing.SystemDefaultRoutePlanner;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HeaderElement;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.message.MessageSupport;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The channel's HTTP client, behind which the library it uses stays: Apache HttpClient 5's async
 * client, chosen by herald-bench's webhook roof (a third of the JDK client's CPU per request). A pool
 * of kept-alive connections per endpoint, HTTP/2 where TLS negotiates it (ALPN), no redirects, no
 * automatic retries, no cookies, a proxy selector, and a host resolver that is the SSRF guard: the
 * addresses it vets are the ones connected to. Sends complete on the client's I/O threads.
 */
final class HttpTransport implements AutoCloseable {
  /** How long an idle connection is kept for reuse, at most (less when the receiver's Keep-Alive says so). */
  static final long KEEP_ALIVE_SECONDS = 30;
  private static final ContentType JSON = ContentType.create("application/json");
  /** An OAuth 2.0 token request's body. */
  static final ContentType FORM = ContentType.create("application/x-www-form-urlencoded");

  private final CloseableHttpAsyncClient client;
  /** Ends exchanges that outlive their timeout (the client's own timeouts are per read, not per exchange). */
  private final ScheduledExecutorService timer;

  /**
   * @param guard resolves a target's host and refuses it (with a {@link GuardedResolver.Refused}) if
   *     an address is one the SSRF guard refuses; proxies are resolved without it
   */
  HttpTransport(GuardedResolver guard, Duration connectTimeout, SSLContext sslContext, ProxySelector proxy,
      int ioThreads) {
    SSLContext tls;
    try {
      tls = sslContext != null ? sslContext : SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no default TLS context in this JVM", e);
    }
    var connections = PoolingAsyncClientConnectionManagerBuilder.create()
        .setDnsResolver(guard)
        .setTlsStrategy(ClientTlsStrategyBuilder.create().setSslContext(tls).buildAsync())
        .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX) // a pool per endpoint, no global lock
        .setMaxConnPerRoute(10_000) // the channel bounds requests in flight per endpoint (max-concurrency)
        .setMaxConnTotal(Integer.MAX_VALUE)
        .setDefaultConnectionConfig(ConnectionConfig.custom()
            .setConnectTimeout(Timeout.of(connectTimeout))
            .setTimeToLive(TimeValue.ofMinutes(10)) // a long-lived connection follows DNS eventually
            .build())
        .build();
    AtomicInteger n = new AtomicInteger();
    this.client = HttpAsyncClients.custom()
        .setConnectionManager(connections)
        .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(ioThreads).setSoKeepAlive(true).build())
        .setThreadFactory(r -> daemon(r, "herald-http-io-" + n.getAndIncrement()))
        .setVersionPolicy(HttpVersionPolicy.NEGOTIATE) // h2 by ALPN over TLS; HTTP/1.1 in clear
        .setRoutePlanner(routes(proxy, guard))
        .setKeepAliveStrategy(HttpTransport::keepAlive)
        .setDefaultRequestConfig(RequestConfig.custom().setRedirectsEnabled(false).build())
        .disableRedirectHandling()
        .disableAutomaticRetries() // a stale connection's resend is the channel's, logged
        .disableCookieManagement()
        .disableAuthCaching()
        .disableConnectionState()
        .disableContentCompression()
        .evictExpiredConnections()
        .evictIdleConnections(TimeValue.ofSeconds(KEEP_ALIVE_SECONDS))
        .build();
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "herald-http-timeouts"));
    t.setRemoveOnCancelPolicy(true);
    this.timer = t;
    client.start();
  }

  /**
   * Routes through {@code proxy}, else through the JVM's proxy settings where they name one. Where
   * nothing names a proxy, no route asks a selector: the JDK's selector parses each request's URI
   * and reads its properties again, a tenth of the thread that starts the exchanges.
   */
  private static org.apache.hc.client5.http.routing.HttpRoutePlanner routes(ProxySelector proxy, GuardedResolver guard) {
    ProxySelector selector = proxy != null ? proxy : jvmProxies();
    return selector == null ? new org.apache.hc.client5.http.impl.routing.DefaultRoutePlanner(null)
        : new VettedProxyRoutes(selector, guard);
  }

  /** The JVM's default proxy selector, or null where it is the JDK's own and its settings name no proxy. */
  static ProxySelector jvmProxies() {
    ProxySelector selector = ProxySelector.getDefault();
    if (selector == null) {
      return null;
    }
    if (!selector.getClass().getName().equals("sun.net.spi.DefaultProxySelector")
        || Boolean.getBoolean("java.net.useSystemProxies")) {
      return selector; // an application's own selector, or the operating system's settings
    }
    for (String property : List.of("http.proxyHost", "https.proxyHost", "socksProxyHost")) {
      String host = System.getProperty(property);
      if (host != null && !host.isBlank()) {
        return selector;
      }
    }
    return null;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * POSTs {@code body} to {@code target} with {@code headers} (name, value pairs; the content type is
   * the body's). Completes with the answer, its body read up to {@code bodyLimit} bytes; or
   * exceptionally: a {@link TimeoutException} past {@code timeout}, the client's I/O exception, or a
   * {@link GuardedResolver.Refused} in the cause chain when the guard refused the target's address.
   */
  CompletableFuture<Answer> post(Target target, List<String> headers, byte[] body, Duration timeout, int bodyLimit) {
    return post(target, headers, body, JSON, timeout, bodyLimit);
  }

  /** {@link #post(Target, List, byte[], Duration, int)} with a body of another type. */
  CompletableFuture<Answer> post(Target target, List<String> headers, byte[] body, ContentType type, Duration timeout,
      int bodyLimit) {
    HttpHost host = new HttpHost(target.endpoint().scheme(), target.host(), target.endpoint().port());
    String path = target.uri().getRawPath();
    if (path == null || path.isEmpty()) {
      path = "/";
    }
    if (target.uri().getRawQuery() != null) {
      path = path + "?" + target.uri().getRawQuery();
    }
    BasicHttpRequest request = new BasicHttpRequest(Method.POST, host, path);
    for (int i = 0; i < headers.size(); i += 2) {
      request.addHeader(headers.get(i), headers.get(i + 1));
    }
    LimitedResponse consumer = new LimitedResponse(bodyLimit);
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    Future<Answer> exchange = client.execute(new BasicRequestProducer(request, AsyncEntityProducers.create(body, type)),
        consumer, new FutureCallback<>() {
          @Override
          public void completed(Answer a) {
            answer.complete(a);
          }

          @Override
          public void failed(Exception e) {
            Answer truncated = consumer.truncatedAnswer(e);
            if (truncated != null) {
              answer.complete(truncated); // the body's limit was reached: the rest is left unread
            } else {
              answer.completeExceptionally(consumer.started() ? e : new NoResponse(e));
            }
          }

          @Override
          public void cancelled() {
            answer.completeExceptionally(new TimeoutException("cancelled"));
          }
        });
    if (!answer.isDone()) {
      ScheduledFuture<?> deadline = timer.schedule(() -> {
        if (answer.completeExceptionally(new TimeoutException("no complete response within " + timeout))) {
          exchange.cancel(true); // closes the connection
        }
      }, timeout.toNanos(), TimeUnit.NANOSECONDS);
      answer.whenComplete((a, e) -> deadline.cancel(false));
    }
    return answer;
  }

  /**
   * Shuts the client down, aborting exchanges still running. The I/O reactor is asked to stop first
   * and closes its own channels on its own thread: closed from here at once, its selector went away
   * under it and it logged {@code ClosedSelectorException} at ERROR on every shutdown.
   */
  @Override
  public void close() {
    client.initiateShutdown();
    try {
      client.awaitShutdown(SHUTDOWN_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close(CloseMode.IMMEDIATE); // what did not stop within the wait
    timer.shutdownNow();
  }

  private static final TimeValue SHUTDOWN_WAIT = TimeValue.ofSeconds(2);

  /** The receiver's {@code Keep-Alive: timeout=N} if it sends one, capped at {@link #KEEP_ALIVE_SECONDS}. */
  private static TimeValue keepAlive(org.apache.hc.core5.http.HttpResponse response, HttpContext context) {
    var it = MessageSupport.iterate(response, "Keep-Alive");
    while (it.hasNext()) {
      HeaderElement e = it.next();
      if ("timeout".equalsIgnoreCase(e.getName()) && e.getValue() != null) {
        try {
          return TimeValue.ofSeconds(Math.min(KEEP_ALIVE_SECONDS, Long.parseLong(e.getValue().strip())));
        } catch (NumberFormatException ignored) {
          break; // not a number: the default below
        }
      }
    }
    return TimeValue.ofSeconds(KEEP_ALIVE_SECONDS);
  }

  /** A failure before a single byte of a response arrived (the request may or may not have been read). */
  static final class NoResponse extends java.io.IOException {
    NoResponse(Exception cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** A receiver's answer: status, headers in order (names as sent), body up to the limit. */
  record Answer(int status, boolean http2, List<Map.Entry<String, String>> headers, byte[] body, boolean truncated) {
    /** The first value of header {@code name} (any case), or null. */
    String header(String name) {
      for (Map.Entry<String, String> h : headers) {
        if (h.getKey().equalsIgnoreCase(name)) {
          return h.getValue();
        }
      }
      return null;
    }
  }

  /**
   * Routes through the proxy the selector names, if any. A proxy is connected to by the address it
   * resolves to now (so the client does not ask the guard about the proxy, which may well be on a
   * private network), and a target reached through one is vetted here: the proxy resolves it itself.
   */
  private static final class VettedProxyRoutes extends SystemDefaultRoutePlanner {
    private final GuardedResolver guard;

    VettedProxyRoutes(ProxySelector selector, GuardedResolver guard) {
      super(selector);
      this.guard = guard;
    }

    @Override
    protected HttpHost determineProxy(HttpHost target, HttpContext context) throws HttpException {
      HttpHost proxy = super.determineProxy(target, context);
      if (proxy == null) {
        return null;
      }
      try {
        guard.resolve(target.getHostName()); // throws Refused
        InetAddress address = InetAddress.getByName(proxy.getHostName());
        return new HttpHost(proxy.getSchemeName(), address, proxy.getHostName(), proxy.getPort());
      } catch (UnknownHostException e) {
        throw new HttpException(e.getMessage(), e);
      }
    }
  }
}
