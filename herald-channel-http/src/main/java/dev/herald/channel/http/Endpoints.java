package dev.herald.channel.http;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The state of every endpoint in use, bounded: with per-notice targets the endpoints are unbounded,
 * so quiet ones (nothing in flight, circuit closed) are evicted — those unused for {@code idleAfter}
 * once per that period, and, when more than {@code softCap} are kept, also those with no failure
 * for {@code idleAfter}. An evicted state is the same as a new one, but for stale counts. Never
 * evicted: one with requests in flight, an open or half-open circuit, or a recent failure (above
 * the cap these are all kept, so the cap is soft).
 */
final class Endpoints {
  private final Map<Endpoint, EndpointState> states = new ConcurrentHashMap<>();
  private final CircuitSettings settings;
  private final Clock clock;
  private final int softCap;
  private final long idleMillis;
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile long lastSweep;
  /** The size that triggers the next sweep for the cap: doubles while little can be evicted, so sweeps stay amortized O(1). */
  private volatile int sweepAtSize;

  Endpoints(CircuitSettings settings, Clock clock, int softCap, Duration idleAfter) {
    this.settings = settings;
    this.clock = clock;
    this.softCap = softCap;
    // a state idle for a whole failure-rate window has nothing left to count
    this.idleMillis = Math.max(idleAfter.toMillis(), settings.window().toMillis());
    this.lastSweep = clock.millis();
    this.sweepAtSize = softCap;
  }

  /**
   * What {@link #enter} found: the state with a request slot taken, or a wait for the rate limit, or
   * busy (no slot, no wait).
   */
  record Entry(EndpointState state, long rateWaitNanos) {
    boolean entered() {
      return state != null;
    }
  }

  /**
   * Takes {@code notice}'s turn under {@code rate} (null: no limit), then a request slot under
   * {@code limit}, in {@code compute} so that eviction cannot come between. A turn taken when no slot
   * is free is given back to the notice.
   */
  Entry enter(Endpoint endpoint, int limit, Rate rate, java.util.UUID notice, long nowNanos) {
    long now = clock.millis();
    Entry[] entry = {new Entry(null, 0)};
    boolean[] added = {false};
    states.compute(endpoint, (e, s) -> {
      if (s == null) {
        s = new EndpointState(e, settings);
        added[0] = true;
      }
      long wait = rate == null ? 0 : s.rate().take(notice, rate, nowNanos);
      if (wait > 0) {
        entry[0] = new Entry(null, wait);
      } else if (s.tryAcquire(limit, now)) {
        entry[0] = new Entry(s, 0);
      } else if (rate != null) {
        s.rate().giveBack(notice, nowNanos);
      }
      return s;
    });
    if (added[0]) {
      evictIfDue(now);
    }
    return entry[0];
  }

  /** The state of {@code endpoint}, created if new (a disabled one is never evicted). */
  EndpointState pin(Endpoint endpoint) {
    return states.computeIfAbsent(endpoint, e -> new EndpointState(e, settings));
  }

  EndpointState get(Endpoint endpoint) {
    return states.get(endpoint);
  }

  Collection<EndpointState> all() {
    return states.values();
  }

  int size() {
    return states.size();
  }

  private void evictIfDue(long now) {
    boolean idleDue = now - lastSweep >= idleMillis;
    if (!(idleDue || states.size() > sweepAtSize) || !sweeping.compareAndSet(false, true)) {
      return;
    }
    try {
      long idleSince = now - idleMillis;
      long usedBefore = idleDue ? idleSince : now; // over the cap: also the recently used, if they did not fail
      for (Endpoint e : states.keySet()) {
        states.computeIfPresent(e, (k, s) -> s.evictable(usedBefore, idleSince) ? null : s);
      }
      if (idleDue) {
        lastSweep = now;
      }
      sweepAtSize = Math.max(softCap, 2 * states.size());
    } finally {
      sweeping.set(false);
    }
  }
}
