package dev.herald.channel.http;

import dev.herald.spi.CircuitBreaker;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One endpoint's isolation: a count of requests in flight checked against a limit (never a queue:
 * a busy endpoint defers), and a circuit breaker. Thread-safe.
 */
final class EndpointState {
  /** How an attempt counts for the circuit. */
  enum Verdict {
    /** The endpoint answered (2xx, 3xx, most 4xx): healthy, whatever the notice's outcome. */
    RESPONDED,
    /** Timeout, connection error, 5xx, 408, 429. */
    FAILED,
    /** Nothing learnt about the endpoint (refused by the SSRF guard, bad options, an internal error). */
    NEUTRAL
  }

  /** The circuit's answer to a delivery: go, go as the probe, or defer. */
  record Admission(boolean allowed, boolean probe, Duration deferFor, String reason) {
    static final Admission GO = new Admission(true, false, null, null);
    static final Admission PROBE = new Admission(true, true, null, null);
  }

  private final Endpoint endpoint;
  private final CircuitSettings settings;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final RateBucket rate = new RateBucket();

  private final CircuitBreaker circuit;
  // guarded by this
  private long windowStart;
  private int windowCalls;
  private int windowFailures;
  private String lastFailure;
  private String openReason;
  private long lastFailureAt = Long.MIN_VALUE;
  private long failingSince = Long.MIN_VALUE;
  private boolean disabled;
  private long disabledAt;
  private String disabledReason;
  private long rateSecond;
  private int rateCount;
  private int lastSecondCount;
  private volatile Rate maxRate;
  private volatile long lastUsed = Long.MIN_VALUE;
  /** System.nanoTime() of the last response from this endpoint; 0 if none yet. */
  private volatile long lastAnswerNanos;

  EndpointState(Endpoint endpoint, CircuitSettings settings) {
    this.endpoint = endpoint;
    this.settings = settings;
    this.circuit = new CircuitBreaker(settings.failureThreshold(), CircuitBreaker.Probing.ONE_PROBE);
  }

  Endpoint endpoint() {
    return endpoint;
  }

  RateBucket rate() {
    return rate;
  }

  /** Takes a request slot if fewer than {@code limit} are in flight. */
  boolean tryAcquire(int limit, long now) {
    lastUsed = now;
    while (true) {
      int n = inFlight.get();
      if (n >= limit) {
        return false;
      }
      if (inFlight.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Notes that a response arrived (its connection may now be kept alive in the client's pool). */
  void answered(long nanos) {
    lastAnswerNanos = nanos;
  }

  /** Whether a response arrived at or after {@code nanos}: only then can a kept-alive connection exist. */
  boolean answeredSince(long nanos) {
    long last = lastAnswerNanos;
    return last != 0 && last - nanos >= 0;
  }

  void release() {
    inFlight.decrementAndGet();
  }

  int inFlight() {
    return inFlight.get();
  }

  synchronized Admission admit(long now) {
    if (disabled) {
      return new Admission(false, false, settings.disabledRecheck(), "endpoint " + endpoint + " is disabled since "
          + Instant.ofEpochMilli(disabledAt) + " (" + disabledReason + "); notices wait until an operator enables it"
          + " (no request sent, no attempt counted)");
    }
    return switch (circuit.admit(now)) {
      case GO -> Admission.GO;
      case PROBE -> Admission.PROBE;
      case HELD_OPEN -> {
        long openUntil = circuit.openUntil();
        yield new Admission(false, false, Duration.ofMillis(openUntil - now),
            "circuit open for " + endpoint + " until " + Instant.ofEpochMilli(openUntil) + " (" + openReason + ")");
      }
      case HELD_HALF_OPEN -> new Admission(false, false, settings.probeWait(),
          "circuit half-open for " + endpoint + ": waiting for the probe's answer");
    };
  }

  /**
   * Feeds an attempt's verdict.
   *
   * @param probe whether this attempt was admitted as the half-open probe
   * @param pause a pause the endpoint asked for (Retry-After on 429/503); null if none
   * @param failure what went wrong, for the status; null unless FAILED
   * @return whether this verdict disabled the endpoint
   */
  synchronized boolean record(Verdict verdict, boolean probe, long now, Duration pause, String failure) {
    if (verdict == Verdict.NEUTRAL) {
      if (probe) {
        circuit.probeReturned();
      }
      return false;
    }
    if (now - windowStart >= settings.window().toMillis()) {
      windowStart = now;
      windowCalls = 0;
      windowFailures = 0;
    }
    windowCalls++;
    if (verdict == Verdict.RESPONDED) {
      failingSince = Long.MIN_VALUE;
      boolean wasHalfOpen = circuit.state(now) == CircuitBreaker.State.HALF_OPEN;
      circuit.success(now, probe);
      if (wasHalfOpen && circuit.state(now) == CircuitBreaker.State.CLOSED) {
        windowStart = now;
        windowCalls = 0;
        windowFailures = 0;
      }
      return false;
    }
    windowFailures++;
    lastFailure = failure;
    lastFailureAt = now;
    boolean disabledNow = false;
    if (failingSince == Long.MIN_VALUE) {
      failingSince = now;
    } else if (!disabled && now - failingSince >= settings.disableAfter().toMillis()) {
      disabledNow = disable(now, "failing without a success since " + Instant.ofEpochMilli(failingSince)
          + ", last: " + failure);
    }
    if (pause != null && !pause.isZero()) {
      circuit.countFailure(probe);
      open(now, pause.toMillis(), "asked to wait: " + failure);
      return disabledNow;
    }
    switch (circuit.failure(now, probe, settings.openFor().toMillis())) {
      case PROBE_FAILED -> openReason = "probe failed: " + failure;
      case THRESHOLD -> openReason = circuit.consecutiveFailures() + " consecutive failures, last: " + failure;
      case NO -> {
        if (circuit.state(now) == CircuitBreaker.State.CLOSED && windowCalls >= settings.minimumCalls()
            && windowFailures >= settings.failureRate() * windowCalls) {
          open(now, settings.openFor().toMillis(),
              windowFailures + " of " + windowCalls + " calls failed, last: " + failure);
        }
      }
    }
    return disabledNow;
  }

  /** Disables the endpoint: deliveries wait until {@link #enable}. False if it already was. */
  synchronized boolean disable(long now, String reason) {
    if (disabled) {
      return false;
    }
    disabled = true;
    disabledAt = now;
    disabledReason = reason;
    return true;
  }

  /** Enables the endpoint again with a clean slate: circuit closed, no failures counted. False if it was not disabled. */
  synchronized boolean enable() {
    boolean was = disabled;
    disabled = false;
    disabledReason = null;
    failingSince = Long.MIN_VALUE;
    circuit.reset();
    windowCalls = 0;
    windowFailures = 0;
    return was;
  }

  /** Whether deliveries are held back now without a request: disabled, or circuit open. */
  synchronized boolean blocked(long now) {
    return disabled || circuit.state(now) == CircuitBreaker.State.OPEN;
  }

  synchronized boolean disabled() {
    return disabled;
  }

  /** Notes a request started now, under {@code rate} (null for none). */
  synchronized void started(long now, Rate rate) {
    countRequest(now);
    maxRate = rate;
  }

  /** Requests started per one-second window, to show the rate an endpoint gets. */
  private void countRequest(long now) {
    long second = now / 1000;
    if (second != rateSecond) {
      lastSecondCount = second == rateSecond + 1 ? rateCount : 0;
      rateSecond = second;
      rateCount = 0;
    }
    rateCount++;
  }

  private void open(long now, long millis, String reason) {
    circuit.open(now, millis);
    openReason = reason;
  }

  /**
   * Whether this state may be forgotten: nothing in flight, circuit closed (an open one, even past
   * its open period, still owes a probe), not used since {@code usedBefore} and no failure since
   * {@code failedBefore}. Called under the map's lock for this endpoint, which excludes {@link
   * #tryAcquire} and so everything that changes the state.
   */
  synchronized boolean evictable(long usedBefore, long failedBefore) {
    return inFlight.get() == 0 && circuit.closed() && !circuit.probeOut()
        && !disabled
        && lastUsed <= usedBefore && lastFailureAt <= failedBefore && rate.idle(System.nanoTime());
  }

  synchronized EndpointStatus status(long now) {
    EndpointStatus.Circuit c = EndpointStatus.Circuit.valueOf(circuit.state(now).name());
    long second = now / 1000;
    int perSecond = second == rateSecond + 1 ? rateCount : second == rateSecond ? lastSecondCount : 0;
    Rate r = maxRate;
    return new EndpointStatus(endpoint.toString(), c, inFlight.get(), circuit.consecutiveFailures(),
        c == EndpointStatus.Circuit.OPEN ? Instant.ofEpochMilli(circuit.openUntil()) : null, lastFailure,
        lastFailureAt == Long.MIN_VALUE ? null : Instant.ofEpochMilli(lastFailureAt),
        failingSince == Long.MIN_VALUE ? null : Instant.ofEpochMilli(failingSince),
        r == null ? null : r.toString(), perSecond, rate.reserved(),
        disabled, disabled ? Instant.ofEpochMilli(disabledAt) : null, disabledReason);
  }
}
