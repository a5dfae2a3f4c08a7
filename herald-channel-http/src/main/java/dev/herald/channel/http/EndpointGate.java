package dev.herald.channel.http;

import dev.herald.DeliveryResult;
import dev.herald.schedule.DurationText;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Lets an attempt to an endpoint start, or defers it without a request: its rate limit, its limit of
 * requests in flight (a busy endpoint defers instead of queueing) and its circuit.
 */
final class EndpointGate {
  /** Either an endpoint entered (a slot taken, to release when the attempt ends) or a deferral. */
  record Pass(EndpointState endpoint, boolean probe, DeliveryResult deferred) {
    static Pass defer(DeliveryResult result) {
      return new Pass(null, false, result);
    }
  }

  private final Endpoints endpoints;
  private final Clock clock;
  private final Duration busyDelay;
  private final Rate defaultRate;
  private final Map<Endpoint, Rate> ownRates = new ConcurrentHashMap<>();

  EndpointGate(Endpoints endpoints, Clock clock, Duration busyDelay, Rate defaultRate, Map<Endpoint, Rate> ownRates) {
    this.endpoints = endpoints;
    this.clock = clock;
    this.busyDelay = busyDelay;
    this.defaultRate = defaultRate;
    this.ownRates.putAll(ownRates);
  }

  Pass enter(Target target, HttpOptions options, UUID noticeId) {
    Rate rate = rateOf(target.endpoint(), options);
    Endpoints.Entry entry = endpoints.enter(target.endpoint(), options.maxConcurrency(), rate, noticeId, System.nanoTime());
    if (entry.rateWaitNanos() > 0) {
      Duration wait = Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(entry.rateWaitNanos() + 999_999)));
      return Pass.defer(DeliveryResult.defer(wait, "rate limit: " + target.endpoint()
          + " is at its max-rate of " + rate + "; this notice's turn is in " + DurationText.format(wait)
          + " (no request sent, no attempt counted)"));
    }
    if (!entry.entered()) {
      return Pass.defer(DeliveryResult.defer(jittered(busyDelay),
          "endpoint busy: " + target.endpoint() + " has its limit of " + options.maxConcurrency()
              + " requests in flight; deferred, not queued"));
    }
    EndpointState endpoint = entry.state();
    EndpointState.Admission admission = endpoint.admit(clock.millis());
    if (!admission.allowed()) {
      endpoint.release();
      return Pass.defer(DeliveryResult.defer(admission.deferFor(), admission.reason()));
    }
    endpoint.started(clock.millis(), rate);
    return new Pass(endpoint, admission.probe(), null);
  }

  /** The endpoint's own rate limit (set by the builder or an operator), or null. */
  Rate ownRate(Endpoint e) {
    return ownRates.get(e);
  }

  /** Sets the endpoint's own rate limit; null removes it. */
  void ownRate(Endpoint e, Rate rate) {
    if (rate == null) {
      ownRates.remove(e);
    } else {
      ownRates.put(e, rate);
    }
  }

  /** The rate limit in force for a delivery: the endpoint's own, else the definition's, else the channel's default. */
  private Rate rateOf(Endpoint e, HttpOptions o) {
    Rate own = ownRates.get(e);
    return own != null ? own : o.maxRate() != null ? o.maxRate() : defaultRate;
  }

  private static Duration jittered(Duration base) {
    long ms = base.toMillis();
    return Duration.ofMillis(ms + ThreadLocalRandom.current().nextLong(ms / 2 + 1));
  }
}
