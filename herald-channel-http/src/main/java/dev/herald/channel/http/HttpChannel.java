package dev.herald.channel.http;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.schedule.DurationText;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * Delivers notices as HTTP webhooks: a {@code POST} of the JSON payload to the target URL (the
 * definition's, or the notice's own), signed per Standard Webhooks. Success is a 2xx response and,
 * where the definition sets option {@code expected-body}, a body equal to it after trimming.
 * Redirects are never followed.
 *
 * <p>Each endpoint (scheme, host, port) is isolated: it has its own limit of requests in flight
 * (a busy endpoint defers deliveries instead of queueing them, so a hung receiver never holds more
 * than its limit of the engine's delivery slots) and its own circuit breaker (an open circuit
 * defers deliveries without a request). The SSRF guard refuses targets on internal networks, when
 * a definition is saved and again on the address resolved for every attempt.
 *
 * <pre>{@code
 * HttpChannel http = HttpChannel.builder().connectTimeout(Duration.ofSeconds(3)).build();
 * Herald herald = Herald.builder()
 *     .channel(http)
 *     .define(NoticeDefinition.builder("order-paid")
 *         .channel("http", "https://merchant.example/notify")
 *         .option("expected-body", "success")
 *         .option("secrets", "whsec_...")
 *         .retry("0s, 1m, 2m, 10m, 1h").build())
 *     .build().start();
 * }</pre>
 *
 * <p>Definition options: {@code timeout} (default 10s), {@code expected-body}, {@code secrets},
 * {@code max-retry-after} (default 1h), {@code max-concurrency} (default: the builder's).
 */
public final class HttpChannel implements Channel {
  /** The default channel name, used by definitions as {@code .channel("http", url)}. */
  public static final String NAME = "http";

  /** Most of a response body read; the rest is not. */
  static final int BODY_LIMIT = 64 * 1024;
  /** Most of a response body written to the attempt log. */
  static final int LOGGED_BODY = 1_000;
  private static final int LOGGED_HEADERS = 40;
  private static final int LOGGED_HEADER_VALUE = 300;

  private final String name;
  private final TargetPolicy policy;
  private final Duration defaultTimeout;
  private final Duration connectTimeout;
  private final int maxConcurrencyPerEndpoint;
  private final Duration busyDelay;
  private final CircuitSettings circuitSettings;
  private final Clock clock;
  private final String userAgent;
  private final HttpClient client;
  private final ExecutorService executor;
  private final Endpoints endpoints;
  private volatile boolean closed;

  private HttpChannel(Builder b) {
    this.name = b.name;
    this.policy = new TargetPolicy(b.allowPrivateNetworks, b.allowList, b.resolver);
    this.defaultTimeout = b.defaultTimeout;
    this.connectTimeout = b.connectTimeout;
    this.maxConcurrencyPerEndpoint = b.maxConcurrencyPerEndpoint;
    this.busyDelay = b.busyDelay;
    this.circuitSettings = new CircuitSettings(b.failureThreshold, b.failureRate, b.minimumCalls, b.rateWindow,
        b.openFor, b.probeWait);
    this.clock = b.clock;
    this.endpoints = new Endpoints(circuitSettings, b.clock, b.endpointSoftCap, b.endpointIdleAfter);
    this.userAgent = b.userAgent;
    this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-http-", 0).factory());
    HttpClient.Builder cb = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_2) // negotiated by ALPN over TLS; falls back to HTTP/1.1
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(b.connectTimeout);
    if (b.sslContext != null) {
      cb.sslContext(b.sslContext);
    }
    if (b.proxy != null) {
      cb.proxy(b.proxy);
    }
    this.client = cb.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * Checks that {@code target} is an absolute {@code http}/{@code https} URL without user info, and
   * that its host is not, and does not resolve to, an address the SSRF guard refuses. A host name
   * that does not resolve yet is accepted (it is checked again at every attempt).
   */
  @Override
  public void validateTarget(String target) {
    policy.validate(target);
  }

  /**
   * Checks a whole definition: its target and its HTTP options ({@code timeout}, {@code
   * expected-body}, {@code secrets}, {@code max-retry-after}, {@code max-concurrency}). The engine
   * checks only the target when a definition is saved; bad options are reported in the attempt log
   * of every attempt (nothing is sent) until the definition is fixed.
   *
   * @throws InvalidInputException naming {@code target} or {@code options.<key>}
   */
  public void validate(NoticeDefinition definition) {
    validateTarget(definition.target());
    HttpOptions.refuseUnknown(definition);
    HttpOptions.of(definition, defaultTimeout, maxConcurrencyPerEndpoint);
  }

  /**
   * Every endpoint this channel has delivered to lately, with its circuit and requests in flight.
   * Quiet endpoints (nothing in flight, circuit closed) are forgotten after a while without use.
   */
  public List<EndpointStatus> endpoints() {
    long now = clock.millis();
    return endpoints.all().stream()
        .map(e -> e.status(now))
        .sorted(Comparator.comparing(EndpointStatus::endpoint))
        .toList();
  }

  /** The status of the endpoint (origin) of {@code url}, if this channel has delivered there lately. */
  public Optional<EndpointStatus> endpoint(String url) {
    EndpointState s = endpoints.get(Target.parse(url).endpoint());
    return s == null ? Optional.empty() : Optional.of(s.status(clock.millis()));
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("HTTP channel '" + name + "' is closed"));
    }
    Target target;
    try {
      target = Target.parse(delivery.target());
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail("target: " + e.reason() + "\n(no request sent)"));
    }
    HttpOptions options;
    try {
      options = HttpOptions.of(delivery.definition(), defaultTimeout, maxConcurrencyPerEndpoint);
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.retry(
          "definition '" + delivery.definition().name() + "' has a bad option: " + e.getMessage()
              + "\n(no request sent; fix the definition and the next attempt uses it)"));
    }
    EndpointState endpoint = endpoints.acquire(target.endpoint(), options.maxConcurrency());
    if (endpoint == null) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(jittered(busyDelay),
          "endpoint busy: " + target.endpoint() + " has its limit of " + options.maxConcurrency()
              + " requests in flight; deferred, not queued"));
    }
    EndpointState.Admission admission = endpoint.admit(clock.millis());
    if (!admission.allowed()) {
      endpoint.release();
      return CompletableFuture.completedFuture(DeliveryResult.defer(admission.deferFor(), admission.reason()));
    }
    try {
      return CompletableFuture.supplyAsync(() -> attempt(delivery, target, options, endpoint, admission.probe()), executor);
    } catch (RejectedExecutionException e) {
      endpoint.record(EndpointState.Verdict.NEUTRAL, admission.probe(), clock.millis(), null, null);
      endpoint.release();
      return CompletableFuture.completedFuture(DeliveryResult.retry("HTTP channel '" + name + "' is closed"));
    }
  }

  /** Shuts the HTTP client down, aborting requests still running, and stops the channel's threads. */
  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
    client.shutdownNow();
  }

  // ------------------------------------------------------------------------------------ attempt

  /** What an attempt achieved, and what it says about the endpoint. */
  private record Outcome(DeliveryResult result, EndpointState.Verdict verdict, Duration pause, String failure) {}

  private DeliveryResult attempt(Delivery d, Target t, HttpOptions o, EndpointState endpoint, boolean probe) {
    Outcome outcome = null;
    try {
      outcome = exchange(d, t, o);
    } catch (RuntimeException e) {
      outcome = new Outcome(DeliveryResult.retry("HTTP channel error: " + e), EndpointState.Verdict.NEUTRAL, null, null);
    } finally {
      if (outcome == null) { // an Error
        outcome = new Outcome(null, EndpointState.Verdict.NEUTRAL, null, null);
      }
      endpoint.record(outcome.verdict(), probe, clock.millis(), outcome.pause(), outcome.failure());
      endpoint.release();
    }
    return outcome.result();
  }

  private Outcome exchange(Delivery d, Target t, HttpOptions o) {
    long t0 = System.nanoTime();
    InetAddress[] addresses;
    try {
      addresses = policy.resolver().resolve(t.host());
    } catch (UnknownHostException e) {
      String why = "cannot resolve host '" + t.host() + "'";
      return new Outcome(DeliveryResult.retry(why + "\n(no request sent)"), EndpointState.Verdict.FAILED, null, why);
    }
    TargetPolicy.Refusal refusal = policy.check(t.host(), addresses);
    if (refusal != null) {
      return new Outcome(DeliveryResult.fail(refusal.message() + "\n(no request sent)"),
          EndpointState.Verdict.NEUTRAL, null, null);
    }
    // The JDK client resolves the host again when it connects; within the JVM's DNS cache
    // (networkaddress.cache.ttl, 30 s by default) that is the answer checked above. See README.

    byte[] body = d.notice().payload().getBytes(StandardCharsets.UTF_8);
    String id = d.notice().id().toString();
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest.Builder rb = HttpRequest.newBuilder(t.uri())
        .timeout(o.timeout())
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (!t.isHttps()) {
      rb.version(HttpClient.Version.HTTP_1_1); // no h2c upgrade dance on cleartext
    }
    StringBuilder log = new StringBuilder();
    log.append("> POST ").append(t.uri()).append('\n');
    header(rb, log, "content-type", "application/json");
    header(rb, log, "user-agent", userAgent);
    header(rb, log, "webhook-id", id);
    header(rb, log, "webhook-timestamp", Long.toString(timestamp));
    if (o.signer().signs()) {
      String signature = o.signer().sign(id, timestamp, body);
      rb.header("webhook-signature", signature);
      log.append("> webhook-signature: ").append(Signer.mask(signature)).append('\n');
    }
    header(rb, log, "herald-attempt", Integer.toString(d.attempt()));
    log.append("> (body: ").append(body.length).append(" bytes)\n");

    CompletableFuture<HttpResponse<LimitedBody.Body>> call =
        client.sendAsync(rb.build(), info -> new LimitedBody(BODY_LIMIT));
    HttpResponse<LimitedBody.Body> response;
    try {
      response = call.get(o.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      return transportFailure("timed out: no complete response from " + t.endpoint() + " within "
          + DurationText.format(o.timeout()) + " (option timeout)", log, t0);
    } catch (ExecutionException e) {
      return transportFailure(describe(e.getCause() != null ? e.getCause() : e, t, o), log, t0);
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return new Outcome(DeliveryResult.retry("interrupted: the HTTP channel is closing\n" + log),
          EndpointState.Verdict.NEUTRAL, null, null);
    }
    return judge(response, t, o, log, t0);
  }

  private static void header(HttpRequest.Builder rb, StringBuilder log, String name, String value) {
    rb.header(name, value);
    log.append("> ").append(name).append(": ").append(value).append('\n');
  }

  private Outcome transportFailure(String why, StringBuilder log, long t0) {
    log.append("< (no response)\n");
    String detail = why + "\n" + log + took(t0);
    return new Outcome(DeliveryResult.retry(Attempt.bound(detail)), EndpointState.Verdict.FAILED, null, why);
  }

  private String describe(Throwable c, Target t, HttpOptions o) {
    String msg = c.getMessage();
    if (c instanceof HttpConnectTimeoutException) {
      return "could not connect to " + t.endpoint() + " within " + DurationText.format(connectTimeout)
          + " (connect timeout)";
    }
    if (c instanceof HttpTimeoutException) {
      return "timed out: no complete response from " + t.endpoint() + " within " + DurationText.format(o.timeout())
          + " (option timeout)";
    }
    if (c instanceof ConnectException) {
      return "could not connect to " + t.endpoint() + ": " + (msg == null || msg.isBlank() ? "connection refused" : msg);
    }
    if (c instanceof SSLException) {
      return "TLS with " + t.endpoint() + " failed: " + msg;
    }
    if (c instanceof IOException) {
      return "I/O error with " + t.endpoint() + ": " + c.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
    return "HTTP client error: " + c.getClass().getName() + (msg == null ? "" : ": " + msg);
  }

  /** Turns a response into the attempt's result. */
  private Outcome judge(HttpResponse<LimitedBody.Body> r, Target t, HttpOptions o, StringBuilder log, long t0) {
    int status = r.statusCode();
    LimitedBody.Body body = r.body();
    String text = new String(body.bytes(), charsetOf(r.headers()));
    String headline;
    DeliveryResult result;
    EndpointState.Verdict verdict = EndpointState.Verdict.RESPONDED;
    Duration pause = null;
    String failure = null;
    String statusText = "HTTP " + status + reason(status);

    if (status >= 200 && status < 300) {
      if (o.expectedBody() != null && !text.strip().equals(o.expectedBody())) {
        headline = statusText + " but the body is not the expected '" + o.expectedBody() + "'"
            + (body.truncated() ? " (it is longer than " + BODY_LIMIT / 1024 + " KiB)" : "");
        result = DeliveryResult.retry(headline);
      } else {
        headline = statusText + (o.expectedBody() != null ? " with the expected body" : "") + ": delivered";
        result = DeliveryResult.delivered(headline);
      }
    } else if (status == 410) {
      headline = statusText + ": the receiver says the endpoint is gone; not retrying";
      result = DeliveryResult.fail(headline);
    } else if (status >= 300 && status < 400) {
      headline = statusText + ": redirect to " + location(r, t) + " not followed";
      result = DeliveryResult.retry(headline);
    } else if (status == 429 || status == 503) {
      verdict = EndpointState.Verdict.FAILED;
      failure = statusText;
      String header = r.headers().firstValue("retry-after").orElse(null);
      Duration asked = header == null ? null : retryAfter(header, clock.instant());
      if (asked != null) {
        Duration wait = asked.compareTo(o.maxRetryAfter()) > 0 ? o.maxRetryAfter() : asked;
        headline = statusText + " with Retry-After: " + header + "; next attempt in no less than "
            + DurationText.format(wait) + (wait.equals(asked) ? "" : " (capped by option max-retry-after)")
            + ", and the endpoint paused as long";
        pause = wait;
        result = DeliveryResult.retryAfter(wait, headline);
      } else {
        headline = statusText + (header == null ? "" : " with a Retry-After that is neither seconds nor an HTTP date: "
            + header);
        result = DeliveryResult.retry(headline);
      }
    } else {
      headline = statusText;
      result = DeliveryResult.retry(headline);
      if (status >= 500 || status == 408) {
        verdict = EndpointState.Verdict.FAILED;
        failure = statusText;
      }
    }

    log.append("< ").append(r.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1").append(' ')
        .append(status).append('\n');
    int shown = 0;
    for (Map.Entry<String, List<String>> h : r.headers().map().entrySet()) {
      if (h.getKey().startsWith(":")) {
        continue;
      }
      for (String v : h.getValue()) {
        if (shown++ == LOGGED_HEADERS) {
          log.append("< (more headers not shown)\n");
        }
        if (shown <= LOGGED_HEADERS) {
          String value = h.getKey().equalsIgnoreCase("set-cookie") ? "****" : Attempt.bound(v, LOGGED_HEADER_VALUE);
          log.append("< ").append(h.getKey().toLowerCase(Locale.ROOT)).append(": ").append(value).append('\n');
        }
      }
    }
    if (text.isEmpty()) {
      log.append("< (empty body)\n");
    } else {
      log.append("<\n");
      for (String line : Attempt.bound(text, LOGGED_BODY).split("\n", -1)) {
        log.append("< ").append(line).append('\n');
      }
      if (body.truncated()) {
        log.append("< (body longer than ").append(BODY_LIMIT / 1024).append(" KiB; the rest was not read)\n");
      }
    }
    String detail = Attempt.bound(headline + "\n" + log + took(t0));
    result = new DeliveryResult(result.outcome(), detail, result.retryAfter(), null);
    return new Outcome(result, verdict, pause, failure);
  }

  private static String took(long t0) {
    return "took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms";
  }

  private static String location(HttpResponse<?> r, Target t) {
    String raw = r.headers().firstValue("location").orElse(null);
    if (raw == null) {
      return "(no Location header)";
    }
    try {
      return t.uri().resolve(URI.create(raw.strip())).toString();
    } catch (IllegalArgumentException e) {
      return raw;
    }
  }

  private static Charset charsetOf(HttpHeaders headers) {
    String type = headers.firstValue("content-type").orElse("");
    for (String part : type.split(";")) {
      String p = part.strip();
      if (p.regionMatches(true, 0, "charset=", 0, 8)) {
        try {
          return Charset.forName(p.substring(8).replace("\"", "").strip());
        } catch (RuntimeException e) {
          return StandardCharsets.UTF_8;
        }
      }
    }
    return StandardCharsets.UTF_8;
  }

  private static String reason(int status) {
    String phrase = switch (status) {
      case 200 -> "OK";
      case 201 -> "Created";
      case 202 -> "Accepted";
      case 204 -> "No Content";
      case 301 -> "Moved Permanently";
      case 302 -> "Found";
      case 303 -> "See Other";
      case 307 -> "Temporary Redirect";
      case 308 -> "Permanent Redirect";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 410 -> "Gone";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 500 -> "Internal Server Error";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      default -> null;
    };
    return phrase == null ? "" : " " + phrase;
  }

  /**
   * Reads a Retry-After value: delta-seconds or an HTTP date (RFC 9110). Null if it is neither; a
   * date in the past is zero.
   */
  static Duration retryAfter(String value, Instant now) {
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // beyond ten digits (over 300 years) the cap applies anyway
      return Duration.ofSeconds(v.length() > 10 ? 9_999_999_999L : Long.parseLong(v));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at).truncatedTo(ChronoUnit.MILLIS);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration jittered(Duration base) {
    long ms = base.toMillis();
    return Duration.ofMillis(ms + ThreadLocalRandom.current().nextLong(ms / 2 + 1));
  }

  // ------------------------------------------------------------------------------------ builder

  /** Settings of an HTTP channel; every one has a default. */
  public static final class Builder {
    private String name = NAME;
    private boolean allowPrivateNetworks;
    private final List<String> allowList = new ArrayList<>();
    private TargetPolicy.Resolver resolver = InetAddress::getAllByName;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration defaultTimeout = Duration.ofSeconds(10);
    private int maxConcurrencyPerEndpoint = 16;
    private Duration busyDelay = Duration.ofMillis(200);
    private int failureThreshold = 5;
    private double failureRate = 0.5;
    private int minimumCalls = 20;
    private Duration rateWindow = Duration.ofMinutes(1);
    private Duration openFor = Duration.ofSeconds(30);
    private Duration probeWait = Duration.ofSeconds(1);
    private Clock clock = Clock.systemUTC();
    private int endpointSoftCap = 10_000;
    private Duration endpointIdleAfter = Duration.ofMinutes(10);
    private String userAgent = "Herald-Webhooks/1";
    private SSLContext sslContext;
    private ProxySelector proxy;

    private Builder() {}

    /** The channel's name in definitions; default {@code http}. Two channels with different policies need two names. */
    public Builder name(String channelName) {
      this.name = channelName;
      return this;
    }

    /**
     * Lets targets reach loopback, private (RFC 1918, fc00::/7), link-local, unspecified and
     * reserved addresses. Cloud metadata and multicast addresses still need {@link #allow}. Default
     * false.
     */
    public Builder allowPrivateNetworks(boolean allow) {
      this.allowPrivateNetworks = allow;
      return this;
    }

    /**
     * Allows targets whatever they resolve to: host names ({@code hooks.internal}), suffix
     * patterns ({@code *.internal}), IP addresses ({@code 169.254.169.254}) or CIDR blocks ({@code
     * 10.20.0.0/16}, {@code fd00::/8}).
     */
    public Builder allow(String... hostsOrCidrs) {
      allowList.addAll(List.of(hostsOrCidrs));
      return this;
    }

    /** Tests only: how host names are resolved for the SSRF guard. */
    Builder resolver(TargetPolicy.Resolver r) {
      this.resolver = r;
      return this;
    }

    /** Most time to open a connection; default 5s. */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    /** The whole exchange's time limit where a definition has no {@code timeout} option; default 10s. */
    public Builder defaultTimeout(Duration d) {
      this.defaultTimeout = d;
      return this;
    }

    /** Requests in flight per endpoint where a definition has no {@code max-concurrency} option; default 16. */
    public Builder maxConcurrencyPerEndpoint(int n) {
      this.maxConcurrencyPerEndpoint = n;
      return this;
    }

    /** How long a delivery to a busy endpoint is deferred (plus up to half as much jitter); default 200ms. */
    public Builder busyDelay(Duration d) {
      this.busyDelay = d;
      return this;
    }

    /** Consecutive failures that open an endpoint's circuit; default 5. */
    public Builder circuitFailureThreshold(int n) {
      this.failureThreshold = n;
      return this;
    }

    /**
     * Also open the circuit when at least {@code rate} of the calls in a {@code window} failed,
     * once {@code minimumCalls} were made in it; default 0.5, 20 calls, 1 minute.
     */
    public Builder circuitFailureRate(double rate, int minimumCalls, Duration window) {
      this.failureRate = rate;
      this.minimumCalls = minimumCalls;
      this.rateWindow = window;
      return this;
    }

    /** How long an open circuit defers deliveries before it lets one probe through; default 30s. */
    public Builder circuitOpenFor(Duration d) {
      this.openFor = d;
      return this;
    }

    /** How long deliveries are deferred while a half-open circuit's probe runs; default 1s. */
    public Builder circuitProbeWait(Duration d) {
      this.probeWait = d;
      return this;
    }

    /** The time for {@code webhook-timestamp}, Retry-After dates and circuits; default the system clock. */
    public Builder clock(Clock c) {
      this.clock = c;
      return this;
    }

    /** Tests only: how many endpoints are kept before quiet ones are evicted early, and how long until an unused one is. */
    Builder endpointEviction(int softCap, Duration idleAfter) {
      this.endpointSoftCap = softCap;
      this.endpointIdleAfter = idleAfter;
      return this;
    }

    public Builder userAgent(String agent) {
      this.userAgent = agent;
      return this;
    }

    /** TLS settings, e.g. a private trust store or a client certificate; default the JVM's. */
    public Builder sslContext(SSLContext context) {
      this.sslContext = context;
      return this;
    }

    /** An egress proxy; default the JVM's proxy selector. The SSRF guard still checks the target. */
    public Builder proxy(ProxySelector selector) {
      this.proxy = selector;
      return this;
    }

    public HttpChannel build() {
      if (name == null || !name.matches("[a-z][a-z0-9-]{0,49}")) {
        throw new InvalidInputException("name", "'" + name + "' must be a lower-case channel name such as http");
      }
      positive("connectTimeout", connectTimeout);
      positive("defaultTimeout", defaultTimeout);
      positive("busyDelay", busyDelay);
      positive("circuitOpenFor", openFor);
      positive("circuitProbeWait", probeWait);
      positive("circuitFailureRate.window", rateWindow);
      if (maxConcurrencyPerEndpoint < 1) {
        throw new InvalidInputException("maxConcurrencyPerEndpoint", "must be >= 1, was " + maxConcurrencyPerEndpoint);
      }
      if (failureThreshold < 1) {
        throw new InvalidInputException("circuitFailureThreshold", "must be >= 1, was " + failureThreshold);
      }
      if (!(failureRate > 0 && failureRate <= 1)) {
        throw new InvalidInputException("circuitFailureRate.rate", "must be in (0, 1], was " + failureRate);
      }
      if (minimumCalls < 1) {
        throw new InvalidInputException("circuitFailureRate.minimumCalls", "must be >= 1, was " + minimumCalls);
      }
      if (clock == null) {
        throw new InvalidInputException("clock", "must not be null");
      }
      if (userAgent == null || userAgent.isBlank()) {
        throw new InvalidInputException("userAgent", "must not be blank");
      }
      return new HttpChannel(this);
    }

    private static void positive(String field, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidInputException(field, "must be positive, was " + d);
      }
      if (d.getNano() % 1_000_000 != 0) {
        throw new InvalidInputException(field, "must be a whole number of milliseconds, was " + d);
      }
    }
  }
}
