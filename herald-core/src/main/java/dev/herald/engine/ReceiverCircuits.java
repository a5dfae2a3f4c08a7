package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.ReceiverState;
import dev.herald.SlowCalls;
import dev.herald.spi.CircuitBreaker;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Document 003's switch between inline and background delivery, per receiver (see {@link
 * SyncFirst#receiverOf(dev.herald.NoticeDefinition, String)}). Closed: deliver inline. After {@code
 * failureThreshold} consecutive failed attempts, or any rate-limited one (a retry with a
 * Retry-After), or when the share of slow attempts among its latest passes {@link SlowCalls} (rising
 * response times), it opens: callers are deferred at once. When the open period ends it lets a growing
 * share of calls through (1 in 16, 1 in 8, 1 in 4, 1 in 2, then all) as long as attempts succeed;
 * one failure opens it again.
 *
 * <p>With per-notice targets the receivers are unbounded, so only circuits worth remembering are
 * kept: a closed one without failures is the same as none and is dropped at once; a closed one
 * with failures is forgotten after {@link #FORGET_AFTER} without attempts (its run of failures is
 * stale). Open and half-open circuits are always kept.
 */
public final class ReceiverCircuits {
  /** How long a closed circuit's failures are remembered without a new attempt. */
  static final Duration FORGET_AFTER = Duration.ofMinutes(10);

  private final Clock clock;
  private final int failureThreshold;
  private final Duration openFor;
  private final SlowCalls slowCalls;
  private final Map<String, Circuit> circuits = new ConcurrentHashMap<>();
  private final AtomicLong lastSweep;

  public ReceiverCircuits(Clock clock, int failureThreshold, Duration openFor) {
    this(clock, failureThreshold, openFor, SlowCalls.OFF);
  }

  public ReceiverCircuits(Clock clock, int failureThreshold, Duration openFor, SlowCalls slowCalls) {
    this.slowCalls = slowCalls;
    this.clock = clock;
    this.failureThreshold = failureThreshold;
    this.openFor = openFor;
    this.lastSweep = new AtomicLong(clock.millis());
  }

  /** Whether a caller may deliver inline to this receiver now. */
  public boolean allowInline(String receiver) {
    Circuit c = circuits.get(receiver);
    return c == null || c.allow(clock.millis());
  }

  /** When an open circuit starts letting calls through again; null if it is not open. */
  public java.time.Instant openUntil(String receiver) {
    Circuit c = circuits.get(receiver);
    return c == null ? null : c.openUntil(clock.millis());
  }

  public ReceiverState state(String receiver) {
    Circuit c = circuits.get(receiver);
    return c == null ? ReceiverState.CLOSED : c.state(clock.millis());
  }

  /** Feeds an attempt's result, from any path (inline or background). */
  public void record(String receiver, DeliveryResult result) {
    record(receiver, result, null);
  }

  /** Feeds an attempt's result and how long it took (null: unknown, not slow). */
  public void record(String receiver, DeliveryResult result, Duration took) {
    if (result.outcome() == DeliveryResult.Outcome.DEFER) {
      return; // not an attempt: says nothing about the receiver
    }
    boolean slow = slowCalls.isSlow(took);
    if (result.isDelivered() && !slow && circuits.isEmpty()) {
      return; // the common case, without locking a bin: a success where no receiver is failing
    }
    long now = clock.millis();
    boolean[] added = {false};
    // compute, not get-then-mutate: a sweep removing the circuit meanwhile would lose this result
    circuits.compute(receiver, (r, c) -> {
      if (c == null) {
        if (result.isDelivered() && !slow) {
          return null; // a quick success on a healthy receiver changes nothing
        }
        c = new Circuit(failureThreshold);
        added[0] = true;
      }
      if (result.isDelivered()) {
        c.success(now);
      } else if (result.outcome() == DeliveryResult.Outcome.RETRY && result.retryAfter() != null) {
        c.open(now, Math.max(openFor.toMillis(), result.retryAfter().toMillis()));
      } else {
        c.failure(now, openFor.toMillis());
      }
      if (slowCalls.enabled()) {
        c.timed(slow, now, slowCalls, openFor.toMillis());
      }
      return c.healthy(now) ? null : c;
    });
    if (added[0]) {
      forgetIdle(now);
    }
  }

  /** Drops closed circuits idle for {@link #FORGET_AFTER}; runs at most once per that period, when a receiver is added. */
  private void forgetIdle(long now) {
    long last = lastSweep.get();
    if (now - last < FORGET_AFTER.toMillis() || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    long idleSince = now - FORGET_AFTER.toMillis();
    for (String receiver : circuits.keySet()) {
      circuits.computeIfPresent(receiver, (r, c) -> c.forgettable(now, idleSince) ? null : c);
    }
  }

  /** Receivers whose circuit is in {@code state} now; CLOSED counts only those with recent failures. */
  public int count(ReceiverState state) {
    long now = clock.millis();
    int n = 0;
    for (Circuit c : circuits.values()) {
      if (c.state(now) == state) {
        n++;
      }
    }
    return n;
  }

  /** Circuits kept, for tests. */
  int size() {
    return circuits.size();
  }

  /**
   * One receiver's state: the shared {@link CircuitBreaker} (ramping up its probes) plus the slow-call
   * window and the time of its last attempt; synchronized because callers and the writer touch it together.
   */
  private static final class Circuit {
    private final CircuitBreaker breaker;
    private long lastAttempt;
    /** The latest attempts since the first slow one, slow or not (a ring); null until one was slow. */
    private boolean[] recent;
    private int recentCount;
    private int recentNext;
    private int slowInRecent;

    Circuit(int failureThreshold) {
      breaker = new CircuitBreaker(failureThreshold, CircuitBreaker.Probing.RAMP_UP);
    }

    /** Closed without failures or slow attempts counted: the same as no circuit at all. */
    synchronized boolean healthy(long now) {
      return breaker.consecutiveFailures() == 0 && slowInRecent == 0 && state(now) == ReceiverState.CLOSED;
    }

    /** Counts an attempt in the slow-call window; opens when the window's share of slow ones reaches the rate. */
    synchronized void timed(boolean slow, long now, SlowCalls s, long openMillis) {
      if (recent == null) {
        if (!slow) {
          return;
        }
        recent = new boolean[s.window()];
      }
      if (recentCount == recent.length) {
        if (recent[recentNext]) {
          slowInRecent--;
        }
      } else {
        recentCount++;
      }
      recent[recentNext] = slow;
      slowInRecent += slow ? 1 : 0;
      recentNext = (recentNext + 1) % recent.length;
      if (recentCount >= s.minimumCalls() && slowInRecent >= s.rate() * recentCount) {
        open(now, openMillis);
        recent = null; // the next window starts after the open period, with the probes
        recentCount = 0;
        recentNext = 0;
        slowInRecent = 0;
      }
    }

    /** Closed, and no attempt since {@code idleSince}: never an open or half-open circuit. */
    synchronized boolean forgettable(long now, long idleSince) {
      return state(now) == ReceiverState.CLOSED && lastAttempt <= idleSince;
    }

    synchronized ReceiverState state(long now) {
      return ReceiverState.valueOf(breaker.state(now).name());
    }

    synchronized java.time.Instant openUntil(long now) {
      return breaker.state(now) == CircuitBreaker.State.OPEN ? java.time.Instant.ofEpochMilli(breaker.openUntil()) : null;
    }

    synchronized boolean allow(long now) {
      return breaker.admit(now) == CircuitBreaker.Admission.GO;
    }

    synchronized void success(long now) {
      lastAttempt = now;
      breaker.success(now, false);
    }

    synchronized void failure(long now, long openMillis) {
      lastAttempt = now;
      breaker.failure(now, false, openMillis);
    }

    synchronized void open(long now, long millis) {
      lastAttempt = now;
      breaker.open(now, millis);
    }
  }
}
