package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.ReceiverState;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Document 003's switch between inline and background delivery, per receiver (a definition's
 * channel and target). Closed: deliver inline. After {@code failureThreshold} consecutive failed
 * attempts, or any rate-limited one (a retry with a Retry-After), it opens: callers are deferred at
 * once. When the open period ends it lets a growing share of calls through (1 in 16, 1 in 8, 1 in
 * 4, 1 in 2, then all) as long as attempts succeed; one failure opens it again.
 */
public final class ReceiverCircuits {
  private final Clock clock;
  private final int failureThreshold;
  private final Duration openFor;
  private final Map<String, Circuit> circuits = new ConcurrentHashMap<>();

  public ReceiverCircuits(Clock clock, int failureThreshold, Duration openFor) {
    this.clock = clock;
    this.failureThreshold = failureThreshold;
    this.openFor = openFor;
  }

  /** Whether a caller may deliver inline to this receiver now. */
  public boolean allowInline(String receiver) {
    return circuit(receiver).allow(clock.millis());
  }

  /** When an open circuit starts letting calls through again; null if it is not open. */
  public java.time.Instant openUntil(String receiver) {
    return circuit(receiver).openUntil(clock.millis());
  }

  public ReceiverState state(String receiver) {
    return circuit(receiver).state(clock.millis());
  }

  /** Feeds an attempt's result, from any path (inline or background). */
  public void record(String receiver, DeliveryResult result) {
    if (result.outcome() == DeliveryResult.Outcome.DEFER) {
      return; // not an attempt: says nothing about the receiver
    }
    Circuit c = circuit(receiver);
    long now = clock.millis();
    if (result.isDelivered()) {
      c.success(now);
    } else if (result.outcome() == DeliveryResult.Outcome.RETRY && result.retryAfter() != null) {
      c.open(now, Math.max(openFor.toMillis(), result.retryAfter().toMillis()));
    } else {
      c.failure(now, failureThreshold, openFor.toMillis());
    }
  }

  private Circuit circuit(String receiver) {
    return circuits.computeIfAbsent(receiver, r -> new Circuit());
  }

  /** One receiver's state; synchronized because callers and the writer touch it together. */
  private static final class Circuit {
    private int consecutiveFailures;
    private long openUntil;
    /** While half-open: let one call in every {@code stride}; halves with each success. */
    private int stride = 1;
    private long calls;

    synchronized ReceiverState state(long now) {
      if (now < openUntil) {
        return ReceiverState.OPEN;
      }
      return stride > 1 ? ReceiverState.HALF_OPEN : ReceiverState.CLOSED;
    }

    synchronized java.time.Instant openUntil(long now) {
      return now < openUntil ? java.time.Instant.ofEpochMilli(openUntil) : null;
    }

    synchronized boolean allow(long now) {
      return switch (state(now)) {
        case OPEN -> false;
        case CLOSED -> true;
        case HALF_OPEN -> calls++ % stride == 0;
      };
    }

    synchronized void success(long now) {
      consecutiveFailures = 0;
      if (now >= openUntil && stride > 1) {
        stride = Math.max(1, stride / 2);
      }
    }

    synchronized void failure(long now, int threshold, long openMillis) {
      consecutiveFailures++;
      if (stride > 1 && now >= openUntil) {
        open(now, openMillis); // a failed probe
      } else if (consecutiveFailures >= threshold) {
        open(now, openMillis);
      }
    }

    synchronized void open(long now, long millis) {
      openUntil = Math.max(openUntil, now + millis);
      stride = 16; // probes first: 1 in 16, then 8, 4, 2, all
      calls = 0;
    }
  }
}
