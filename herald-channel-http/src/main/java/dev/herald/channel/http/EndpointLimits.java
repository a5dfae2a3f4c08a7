package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.spi.ChannelBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The endpoint protection half of {@link HttpChannel.Builder}: requests in flight and rate per
 * endpoint, the circuit breaker, disabling an endpoint that keeps failing, and forgetting quiet ones.
 */
abstract sealed class EndpointLimits extends ChannelBuilder<HttpChannel.Builder> permits HttpChannel.Builder {
  int maxConcurrencyPerEndpoint = 16;
  Rate defaultRate;
  final Map<Endpoint, Rate> endpointRates = new HashMap<>();
  int failureThreshold = 5;
  double failureRate = 0.5;
  int minimumCalls = 20;
  Duration rateWindow = Duration.ofMinutes(1);
  Duration openFor = Duration.ofSeconds(30);
  Duration probeWait = Duration.ofSeconds(1);
  Duration disableAfter = Duration.ofDays(5);
  Duration disabledRecheck = Duration.ofMinutes(1);
  EndpointListener listener = new EndpointListener() {};
  int endpointSoftCap = 10_000;
  Duration endpointIdleAfter = Duration.ofMinutes(10);

  EndpointLimits() {
    super(HttpChannel.NAME);
  }

  private HttpChannel.Builder self() {
    return (HttpChannel.Builder) this;
  }

  /** Requests in flight per endpoint where a definition has no {@code max-concurrency} option; default 16. */
  public HttpChannel.Builder maxConcurrencyPerEndpoint(int n) {
    this.maxConcurrencyPerEndpoint = n;
    return self();
  }

  /**
   * The rate limit of every endpoint where a definition has no {@code max-rate} option, e.g. {@code
   * 100/s}; default none.
   */
  public HttpChannel.Builder maxRatePerEndpoint(String rate) {
    this.defaultRate = rate == null ? null : Rate.parse(rate, "maxRatePerEndpoint");
    return self();
  }

  /**
   * The rate limit of one endpoint (the origin of {@code url}), over any definition's {@code
   * max-rate}, e.g. {@code maxRate("https://api.sms.example", "50/s")}.
   */
  public HttpChannel.Builder maxRate(String url, String rate) {
    endpointRates.put(Target.parse(url).endpoint(), Rate.parse(rate, "maxRate"));
    return self();
  }

  /** Consecutive failures that open an endpoint's circuit; default 5. */
  public HttpChannel.Builder circuitFailureThreshold(int n) {
    this.failureThreshold = n;
    return self();
  }

  /**
   * Also open the circuit when at least {@code rate} of the calls in a {@code window} failed,
   * once {@code minimumCalls} were made in it; default 0.5, 20 calls, 1 minute.
   */
  public HttpChannel.Builder circuitFailureRate(double rate, int minimumCalls, Duration window) {
    this.failureRate = rate;
    this.minimumCalls = minimumCalls;
    this.rateWindow = window;
    return self();
  }

  /** How long an open circuit defers deliveries before it lets one probe through; default 30s. */
  public HttpChannel.Builder circuitOpenFor(Duration d) {
    this.openFor = d;
    return self();
  }

  /** How long deliveries are deferred while a half-open circuit's probe runs; default 1s. */
  public HttpChannel.Builder circuitProbeWait(Duration d) {
    this.probeWait = d;
    return self();
  }

  /**
   * How long an endpoint may fail without a single success (timeouts, connection errors, 5xx, 408,
   * 429) before it is disabled: its notices then wait, neither attempted nor DEAD, until {@link
   * HttpChannel#enable}; default 5 days.
   */
  public HttpChannel.Builder disableAfter(Duration d) {
    this.disableAfter = d;
    return self();
  }

  /** How long a delivery to a disabled endpoint is deferred at a time; default 1 minute. */
  public HttpChannel.Builder disabledRecheck(Duration d) {
    this.disabledRecheck = d;
    return self();
  }

  /** Hears about endpoints being disabled (to alert, to store the flag); default none. */
  public HttpChannel.Builder endpointListener(EndpointListener l) {
    this.listener = l;
    return self();
  }

  /** Tests only: how many endpoints are kept before quiet ones are evicted early, and how long until an unused one is. */
  HttpChannel.Builder endpointEviction(int softCap, Duration idleAfter) {
    this.endpointSoftCap = softCap;
    this.endpointIdleAfter = idleAfter;
    return self();
  }

  CircuitSettings circuitSettings() {
    return new CircuitSettings(failureThreshold, failureRate, minimumCalls, rateWindow, openFor, probeWait, disableAfter,
        disabledRecheck);
  }

  /** Names the first bad limit. */
  void checkLimits() {
    positive("busyDelay", busyDelay());
    positive("circuitOpenFor", openFor);
    positive("circuitProbeWait", probeWait);
    positive("circuitFailureRate.window", rateWindow);
    positive("disableAfter", disableAfter);
    positive("disabledRecheck", disabledRecheck);
    if (listener == null) {
      throw new InvalidInputException("endpointListener", "must not be null");
    }
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
  }

  /** A positive whole number of milliseconds, or an error naming {@code field}. */
  static void positive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInputException(field, "must be positive, was " + d);
    }
    if (d.getNano() % 1_000_000 != 0) {
      throw new InvalidInputException(field, "must be a whole number of milliseconds, was " + d);
    }
  }
}
