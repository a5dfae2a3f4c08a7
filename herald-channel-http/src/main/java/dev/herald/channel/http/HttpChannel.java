package dev.herald.channel.http;

import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.schedule.DurationText;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import dev.herald.spi.PeerStatus;
import dev.herald.health.PeerHealth;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

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
 * a definition is saved and again on the very addresses the client connects to.
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
 * {@code max-retry-after} (default 1h), {@code max-concurrency} (default: the builder's), {@code
 * max-rate}, {@code fallback-targets}, {@code failover-after}, {@code header.<name>} and {@code
 * secret-header.<name>} (headers sent with every request), {@code tls.certificate} with {@code
 * tls.secret-key} or {@code tls.secret-key-store} with {@code tls.key-store-password} (a client
 * certificate for mutual TLS), {@code tls.ca} (the authorities to trust for the receiver), and {@code
 * oauth2.url}, {@code oauth2.client-id}, {@code oauth2.client-secret}, {@code oauth2.scope},
 * {@code oauth2.audience}, {@code oauth2.client-auth} (a bearer token by OAuth 2.0 client credentials).
 */
public final class HttpChannel implements Channel {
  /** The default channel name, used by definitions as {@code .channel("http", url)}. */
  public static final String NAME = "http";

  private final String name;
  private final TargetPolicy policy;
  private final Duration defaultTimeout;
  private final Duration connectTimeout;
  private final int maxConcurrencyPerEndpoint;
  private final Duration busyDelay;
  private final CircuitSettings circuitSettings;
  private final Clock clock;
  private final String userAgent;
  private final Transports transports;
  private final WebhookExchange exchange;
  private final java.util.function.UnaryOperator<String> secretOpener;
  /**
   * Completes attempts' futures: the engine's and its listeners' code that follows an attempt must not
   * run on (and may not block) the HTTP client's few I/O threads. A virtual thread each, started when
   * the answer is in: none waits for a response.
   */
  private final ExecutorService completions;
  private final Endpoints endpoints;
  private final Map<Endpoint, Rate> endpointRates = new ConcurrentHashMap<>();
  /** Read options and targets per definition name, valid while the engine hands over the same definition object. */
  private final Map<String, ReadDefinition> readDefinitions = new ConcurrentHashMap<>();
  private final Rate defaultRate;
  private final EndpointListener listener;
  private final PeerHealth health;
  private volatile boolean closed;

  private HttpChannel(Builder b) {
    this.name = b.name;
    this.policy = new TargetPolicy(b.allowPrivateNetworks, b.allowList, b.resolver);
    this.defaultTimeout = b.defaultTimeout;
    this.connectTimeout = b.connectTimeout;
    this.maxConcurrencyPerEndpoint = b.maxConcurrencyPerEndpoint;
    this.busyDelay = b.busyDelay;
    this.circuitSettings = new CircuitSettings(b.failureThreshold, b.failureRate, b.minimumCalls, b.rateWindow,
        b.openFor, b.probeWait, b.disableAfter, b.disabledRecheck);
    this.listener = b.listener;
    this.clock = b.clock;
    this.health = new PeerHealth(b.name, PeerStatus.Kind.ENDPOINT, b.clock, b.failureThreshold, b.healthLogEvery);
    this.endpoints = new Endpoints(circuitSettings, b.clock, b.endpointSoftCap, b.endpointIdleAfter);
    this.userAgent = b.userAgent;
    this.defaultRate = b.defaultRate;
    this.endpointRates.putAll(b.endpointRates);
    this.completions = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-http-", 0).factory());
    this.secretOpener = b.secretOpener;
    this.transports = new Transports(new GuardedResolver(policy), b.connectTimeout, b.sslContext, b.proxy,
        b.clientThreads);
    this.exchange = new WebhookExchange(transports, new OAuth2Tokens(transports.shared(), b.clock, b.secretOpener),
        policy, clock, userAgent, connectTimeout, b.extraHeaders);
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
    for (Target t : FailoverTargets.parse(target, "target")) {
      policy.validate(t.uri().toString());
    }
  }

  /** The options a definition may set (see the README's table); the engine refuses others at save. */
  @Override
  public List<dev.herald.spi.DefinitionOption> options() {
    return HttpOptions.DECLARED;
  }

  /**
   * Checks a whole definition when it is saved: its target and its HTTP options' values (the engine
   * has refused undeclared keys before). A definition stored with a bad one reports it in the attempt
   * log of every attempt (nothing is sent) until it is fixed.
   *
   * @throws InvalidInputException naming {@code target} or {@code options.<key>}
   */
  public void validate(NoticeDefinition definition) {
    validateTarget(definition.target());
    HttpOptions options = HttpOptions.of(definition, defaultTimeout, maxConcurrencyPerEndpoint, secretOpener);
    if (options.oauth2() != null) {
      try {
        policy.validate(options.oauth2().tokenUrl().uri().toString());
      } catch (InvalidInputException e) {
        throw new InvalidInputException("options." + OAuth2Client.TOKEN_URL, e.reason());
      }
    }
    for (Target t : options.fallbackTargets()) {
      try {
        policy.validate(t.uri().toString());
      } catch (InvalidInputException e) {
        throw new InvalidInputException("options." + HttpOptions.FALLBACK_TARGETS, e.reason());
      }
    }
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

  /**
   * Each endpoint (origin) delivered to lately: DOWN after the circuit's threshold of failures in a
   * row (timeouts, connection errors, 5xx, 408, 429) until it answers again, with a WARN line at each
   * change ({@link PeerHealth}).
   */
  @Override
  public List<PeerStatus> peers() {
    return health.all();
  }

  /** The status of the endpoint (origin) of {@code url}, if this channel has delivered there lately. */
  public Optional<EndpointStatus> endpoint(String url) {
    EndpointState s = endpoints.get(Target.parse(url).endpoint());
    return s == null ? Optional.empty() : Optional.of(s.status(clock.millis()));
  }

  /** The definition's {@code max-concurrency} (or the builder's default): the engine queues the rest. */
  @Override
  public int maxConcurrentPerReceiver(NoticeDefinition definition) {
    try {
      return read(definition).options().maxConcurrency();
    } catch (InvalidInputException e) {
      return NO_LIMIT_OF_ITS_OWN; // the attempt reports the bad option
    }
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("HTTP channel '" + name + "' is closed"));
    }
    ReadDefinition read;
    try {
      read = read(delivery.definition());
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.retry(
          "definition '" + delivery.definition().name() + "' has a bad option: " + e.getMessage()
              + "\n(no request sent; fix the definition and the next attempt uses it)"));
    }
    HttpOptions options = read.options();
    List<Target> targets;
    try {
      targets = delivery.notice().target() == null && read.targets() != null ? read.targets()
          : FailoverTargets.of(delivery, options);
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail("target: " + e.reason() + "\n(no request sent)"));
    }
    long now = clock.millis();
    int chosen = FailoverTargets.choose(targets, delivery.attempt(), options.failoverAfter(), endpoints, now);
    Target target = targets.get(chosen);
    String failover = chosen == 0 ? null
        : FailoverTargets.note(targets, chosen, delivery.attempt(), options.failoverAfter(), endpoints);
    Rate rate = rateOf(target.endpoint(), options);
    Endpoints.Entry entry =
        endpoints.enter(target.endpoint(), options.maxConcurrency(), rate, delivery.notice().id(), System.nanoTime());
    if (entry.rateWaitNanos() > 0) {
      Duration wait = Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(entry.rateWaitNanos() + 999_999)));
      return CompletableFuture.completedFuture(DeliveryResult.defer(wait, "rate limit: " + target.endpoint()
          + " is at its max-rate of " + rate + "; this notice's turn is in " + DurationText.format(wait)
          + " (no request sent, no attempt counted)"));
    }
    if (!entry.entered()) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(jittered(busyDelay),
          "endpoint busy: " + target.endpoint() + " has its limit of " + options.maxConcurrency()
              + " requests in flight; deferred, not queued"));
    }
    EndpointState endpoint = entry.state();
    EndpointState.Admission admission = endpoint.admit(clock.millis());
    if (!admission.allowed()) {
      endpoint.release();
      return CompletableFuture.completedFuture(DeliveryResult.defer(admission.deferFor(), admission.reason()));
    }
    endpoint.started(clock.millis(), rate);
    return attempt(delivery, target, failover, options, endpoint, admission.probe());
  }

  /**
   * The endpoint (origin) of {@code url} as this channel names it, e.g. {@code https://example.com:443}.
   *
   * @throws InvalidInputException naming {@code target} if it is not an http or https URL
   */
  public static String endpointOf(String url) {
    return Target.parse(url).endpoint().toString();
  }

  /** The rate limit set for the endpoint (origin) of {@code url} itself, if any. */
  public Optional<String> maxRate(String url) {
    Rate r = endpointRates.get(Target.parse(url).endpoint());
    return r == null ? Optional.empty() : Optional.of(r.toString());
  }

  /**
   * Sets the rate limit of the endpoint (origin) of {@code url}, over any definition's {@code
   * max-rate}; null removes it. At run time, e.g. from an operator's API.
   *
   * @throws InvalidInputException naming {@code url} or {@code maxRate}
   */
  public void maxRate(String url, String rate) {
    Endpoint e = Target.parse(url).endpoint();
    if (rate == null) {
      endpointRates.remove(e);
    } else {
      endpointRates.put(e, Rate.parse(rate, "maxRate"));
    }
  }

  /**
   * Disables the endpoint (origin) of {@code url}: its notices wait, deferred without a request, until
   * {@link #enable}. For an operator, or to restore a disabled flag stored before a restart.
   *
   * @param since when it was disabled (kept from the stored flag after a restart)
   * @return false if it already was
   */
  public boolean disable(String url, String reason, java.time.Instant since) {
    EndpointState s = endpoints.pin(Target.parse(url).endpoint());
    return s.disable(since.toEpochMilli(), reason == null || reason.isBlank() ? "disabled by an operator" : reason);
  }

  /**
   * Enables the endpoint (origin) of {@code url} again, with its circuit closed and its failures
   * forgotten; waiting notices go at their next turn (within {@code disabledRecheck}).
   *
   * @return false if it was not disabled
   */
  public boolean enable(String url) {
    EndpointState s = endpoints.get(Target.parse(url).endpoint());
    return s != null && s.enable();
  }

  private void notifyDisabled(EndpointStatus status) {
    try {
      listener.onDisabled(status);
    } catch (RuntimeException e) {
      System.getLogger(HttpChannel.class.getName()).log(System.Logger.Level.WARNING,
          "endpoint listener failed on " + status.endpoint(), e);
    }
  }

  /** A definition's options and targets, read once per definition object (parsing secrets and URLs costs). */
  private record ReadDefinition(NoticeDefinition definition, HttpOptions options, List<Target> targets) {}

  private ReadDefinition read(NoticeDefinition d) {
    ReadDefinition r = readDefinitions.get(d.name());
    if (r != null && r.definition() == d) {
      return r;
    }
    HttpOptions options = HttpOptions.of(d, defaultTimeout, maxConcurrencyPerEndpoint, secretOpener);
    List<Target> targets;
    try {
      List<Target> all = new ArrayList<>(FailoverTargets.parse(d.target(), "target"));
      all.addAll(options.fallbackTargets());
      targets = List.copyOf(all.size() > FailoverTargets.MAX_TARGETS ? all.subList(0, FailoverTargets.MAX_TARGETS) : all);
    } catch (InvalidInputException e) {
      targets = null; // a per-notice-target definition's placeholder; its notices carry their own
    }
    r = new ReadDefinition(d, options, targets);
    if (readDefinitions.size() < 10_000) {
      readDefinitions.put(d.name(), r);
    }
    return r;
  }

  /** The rate limit in force for a delivery: the endpoint's own, else the definition's, else the channel's default. */
  private Rate rateOf(Endpoint e, HttpOptions o) {
    Rate own = endpointRates.get(e);
    return own != null ? own : o.maxRate() != null ? o.maxRate() : defaultRate;
  }

  /**
   * Whether a definition option's value is a secret: masked wherever it is shown, sealed at rest by
   * a server that seals ({@link Builder#secretOpener}). Such options name a secret or password:
   * {@code secrets}, {@code secret-header.<name>}, {@code tls.secret-key}, {@code
   * tls.secret-key-store}, {@code tls.key-store-password}, {@code oauth2.client-secret}.
   */
  public static boolean isSecretOption(String key) {
    return HttpOptions.isSecret(key);
  }

  /** Clients made for TLS identities (client certificates, trusted CAs), for tests. */
  int tlsClients() {
    return transports.identities();
  }

  /** Shuts the HTTP client down, aborting requests still running, and stops the channel's threads. */
  @Override
  public void close() {
    closed = true;
    transports.close();
    completions.shutdown();
  }

  // ------------------------------------------------------------------------------------ attempt

  /**
   * Runs the exchange; when its outcome is in, records it for the endpoint (circuit, slot) and
   * completes the delivery's future on a virtual thread of its own.
   */
  private CompletableFuture<DeliveryResult> attempt(
      Delivery d, Target t, String failover, HttpOptions o, EndpointState endpoint, boolean probe) {
    CompletableFuture<AttemptOutcome> running;
    try {
      running = exchange.run(d, t, failover, o, endpoint);
    } catch (RuntimeException e) {
      running = CompletableFuture.completedFuture(
          AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + e)));
    }
    CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
    running.whenComplete((outcome, error) -> {
      AttemptOutcome done = outcome != null ? outcome
          : AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + error));
      long now = clock.millis();
      boolean disabled = false;
      try {
        disabled = endpoint.record(done.verdict(), probe, now, done.pause(), done.failure());
      } finally {
        endpoint.release();
      }
      String origin = t.endpoint().toString();
      if (done.verdict() == EndpointState.Verdict.RESPONDED) {
        health.succeeded(origin);
      } else if (done.verdict() == EndpointState.Verdict.FAILED) {
        health.failed(origin, done.failure());
      }
      if (disabled) {
        notifyDisabled(endpoint.status(now));
      }
      try {
        completions.execute(() -> result.complete(done.result()));
      } catch (RejectedExecutionException closing) {
        result.complete(done.result());
      }
    });
    return result;
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
    private Rate defaultRate;
    private final Map<Endpoint, Rate> endpointRates = new HashMap<>();
    private Duration busyDelay = Duration.ofMillis(200);
    private int failureThreshold = 5;
    private double failureRate = 0.5;
    private int minimumCalls = 20;
    private Duration rateWindow = Duration.ofMinutes(1);
    private Duration openFor = Duration.ofSeconds(30);
    private Duration probeWait = Duration.ofSeconds(1);
    private Duration disableAfter = Duration.ofDays(5);
    private Duration disabledRecheck = Duration.ofMinutes(1);
    private EndpointListener listener = new EndpointListener() {};
    private Clock clock = Clock.systemUTC();
    private Duration healthLogEvery = PeerHealth.DEFAULT_REMIND_EVERY;
    private int endpointSoftCap = 10_000;
    private Duration endpointIdleAfter = Duration.ofMinutes(10);
    private String userAgent = "Herald-Webhooks/1";
    private int clientThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private SSLContext sslContext;
    private ProxySelector proxy;
    private java.util.function.UnaryOperator<String> secretOpener = v -> v;
    private java.util.function.Function<Delivery, Map<String, String>> extraHeaders = d -> Map.of();

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

    /**
     * The rate limit of every endpoint where a definition has no {@code max-rate} option, e.g. {@code
     * 100/s}; default none.
     */
    public Builder maxRatePerEndpoint(String rate) {
      this.defaultRate = rate == null ? null : Rate.parse(rate, "maxRatePerEndpoint");
      return this;
    }

    /**
     * The rate limit of one endpoint (the origin of {@code url}), over any definition's {@code
     * max-rate}, e.g. {@code maxRate("https://api.sms.example", "50/s")}.
     */
    public Builder maxRate(String url, String rate) {
      endpointRates.put(Target.parse(url).endpoint(), Rate.parse(rate, "maxRate"));
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

    /**
     * How long an endpoint may fail without a single success (timeouts, connection errors, 5xx, 408,
     * 429) before it is disabled: its notices then wait, neither attempted nor DEAD, until {@link
     * HttpChannel#enable}; default 5 days.
     */
    public Builder disableAfter(Duration d) {
      this.disableAfter = d;
      return this;
    }

    /** How long a delivery to a disabled endpoint is deferred at a time; default 1 minute. */
    public Builder disabledRecheck(Duration d) {
      this.disabledRecheck = d;
      return this;
    }

    /** Hears about endpoints being disabled (to alert, to store the flag); default none. */
    public Builder endpointListener(EndpointListener l) {
      this.listener = l;
      return this;
    }

    /** The time for {@code webhook-timestamp}, Retry-After dates and circuits; default the system clock. */
    /** How often an endpoint still down is logged again (WARN, with the failed attempts since); 5m by default. */
    public Builder healthLogEvery(Duration interval) {
      if (interval == null || interval.isNegative() || interval.isZero()) {
        throw new InvalidInputException("healthLogEvery", "must be positive, was " + interval);
      }
      this.healthLogEvery = interval;
      return this;
    }

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

    /**
     * Threads that run the HTTP client's work: reading responses, TLS, completing requests; default
     * the number of processors, at least 2. More do not help: requests in flight wait on the
     * network, not on these threads.
     */
    public Builder clientThreads(int threads) {
      this.clientThreads = threads;
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

    /**
     * Every request through the HTTP proxy at {@code url} ({@code http://proxy.internal:3128}; https
     * targets through a CONNECT tunnel), except to hosts matching {@code noProxy} (host names, {@code
     * *.suffix} patterns, IP addresses). The SSRF guard still checks every target.
     *
     * @throws InvalidInputException naming {@code proxy} or {@code noProxy}
     */
    public Builder proxy(String url, List<String> noProxy) {
      this.proxy = url == null || url.isBlank() ? null : EgressProxy.of(url, noProxy == null ? List.of() : noProxy);
      return this;
    }

    /**
     * Opens option values that are secrets ({@link HttpChannel#isSecretOption}), where a server keeps
     * them sealed at rest; default none (the values are used as stored). Called once per definition
     * version, not per request.
     */
    public Builder secretOpener(java.util.function.UnaryOperator<String> open) {
      this.secretOpener = open;
      return this;
    }

    /**
     * Headers the application adds to each request, e.g. a per-notice capability for the receiver
     * (default none). Their values are not written to the attempt log (they may be secrets); the
     * channel's own headers ({@code webhook-*}, {@code content-type}...) cannot be replaced.
     */
    public Builder extraHeaders(java.util.function.Function<Delivery, Map<String, String>> headers) {
      this.extraHeaders = headers;
      return this;
    }

    public HttpChannel build() {
      if (extraHeaders == null) {
        throw new InvalidInputException("extraHeaders", "must not be null");
      }
      if (name == null || !name.matches("[a-z][a-z0-9-]{0,49}")) {
        throw new InvalidInputException("name", "'" + name + "' must be a lower-case channel name such as http");
      }
      positive("connectTimeout", connectTimeout);
      positive("defaultTimeout", defaultTimeout);
      positive("busyDelay", busyDelay);
      positive("circuitOpenFor", openFor);
      positive("circuitProbeWait", probeWait);
      positive("circuitFailureRate.window", rateWindow);
      positive("disableAfter", disableAfter);
      positive("disabledRecheck", disabledRecheck);
      if (listener == null) {
        throw new InvalidInputException("endpointListener", "must not be null");
      }
      if (secretOpener == null) {
        throw new InvalidInputException("secretOpener", "must not be null");
      }
      if (maxConcurrencyPerEndpoint < 1) {
        throw new InvalidInputException("maxConcurrencyPerEndpoint", "must be >= 1, was " + maxConcurrencyPerEndpoint);
      }
      if (clientThreads < 1) {
        throw new InvalidInputException("clientThreads", "must be >= 1, was " + clientThreads);
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
