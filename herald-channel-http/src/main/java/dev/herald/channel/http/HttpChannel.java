package dev.herald.channel.http;

import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
  private final Clock clock;
  private final Transports transports;
  private final Endpoints endpoints;
  private final EndpointGate gate;
  private final DefinitionReader definitions;
  private final AttemptRunner attempts;
  private final PeerHealth health;
  private volatile boolean closed;

  private HttpChannel(Builder b) {
    this.name = b.name();
    this.policy = new TargetPolicy(b.allowPrivateNetworks, b.allowList, b.resolver);
    this.clock = b.clock();
    this.health = new PeerHealth(b.name(), PeerStatus.Kind.ENDPOINT, b.clock(), b.failureThreshold, b.healthLogEvery());
    this.endpoints = new Endpoints(b.circuitSettings(), b.clock(), b.endpointSoftCap, b.endpointIdleAfter);
    this.gate = new EndpointGate(endpoints, b.clock(), b.busyDelay(), b.defaultRate, b.endpointRates);
    this.definitions = new DefinitionReader(b.defaultTimeout, b.maxConcurrencyPerEndpoint, b.secretOpener);
    this.transports = new Transports(new GuardedResolver(policy), b.connectTimeout, b.sslContext, b.proxy,
        b.clientThreads);
    WebhookExchange exchange = new WebhookExchange(transports,
        new OAuth2Tokens(transports.shared(), b.clock(), b.secretOpener), policy, clock, b.userAgent, b.connectTimeout,
        b.extraHeaders);
    this.attempts = new AttemptRunner(exchange, health, b.listener, b.clock());
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

  /** Yes: a definition may leave the URL to each notice (such as the server's direct callbacks). */
  @Override
  public boolean perNoticeTargets() {
    return true;
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
    if (!definition.perNoticeTarget()) {
      validateTarget(definition.target());
    }
    HttpOptions options = definitions.options(definition);
    if (definition.perNoticeTarget() && !options.fallbackTargets().isEmpty()) {
      throw new InvalidInputException("options." + HttpOptions.FALLBACK_TARGETS, "a definition without a target"
          + " of its own has no fail-over targets either: each notice gives its URLs, fail-over ones after the first");
    }
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
      return definitions.read(definition).options().maxConcurrency();
    } catch (InvalidInputException e) {
      return NO_LIMIT_OF_ITS_OWN; // the attempt reports the bad option
    }
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("HTTP channel '" + name + "' is closed"));
    }
    DefinitionReader.Read read;
    try {
      read = definitions.read(delivery.definition());
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
    EndpointGate.Pass pass = gate.enter(target, options, delivery.notice().id());
    if (pass.deferred() != null) {
      return CompletableFuture.completedFuture(pass.deferred());
    }
    return attempts.run(delivery, target, failover, options, pass.endpoint(), pass.probe());
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
    Rate r = gate.ownRate(Target.parse(url).endpoint());
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
    gate.ownRate(e, rate == null ? null : Rate.parse(rate, "maxRate"));
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
    attempts.close();
  }

  // ------------------------------------------------------------------------------------ builder

  /** Settings of an HTTP channel; every one has a default. */
  public static final class Builder extends EndpointLimits {
    private boolean allowPrivateNetworks;
    private final List<String> allowList = new ArrayList<>();
    private TargetPolicy.Resolver resolver = InetAddress::getAllByName;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration defaultTimeout = Duration.ofSeconds(10);
    private String userAgent = "Herald-Webhooks/1";
    private int clientThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private SSLContext sslContext;
    private ProxySelector proxy;
    private java.util.function.UnaryOperator<String> secretOpener = v -> v;
    private java.util.function.Function<Delivery, Map<String, String>> extraHeaders = d -> Map.of();

    private Builder() {}

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
      String name = name();
      if (name == null || !name.matches("[a-z][a-z0-9-]{0,49}")) {
        throw new InvalidInputException("name", "'" + name + "' must be a lower-case channel name such as http");
      }
      positive("connectTimeout", connectTimeout);
      positive("defaultTimeout", defaultTimeout);
      checkLimits();
      if (secretOpener == null) {
        throw new InvalidInputException("secretOpener", "must not be null");
      }
      if (clientThreads < 1) {
        throw new InvalidInputException("clientThreads", "must be >= 1, was " + clientThreads);
      }
      if (userAgent == null || userAgent.isBlank()) {
        throw new InvalidInputException("userAgent", "must not be blank");
      }
      return new HttpChannel(this);
    }
  }
}
