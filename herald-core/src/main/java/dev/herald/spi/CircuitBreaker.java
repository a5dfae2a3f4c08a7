package dev.herald.spi;

/**
 * One receiver's circuit breaker: closed (calls go through), open (calls are held back until the
 * open period ends), half-open (probes decide whether it closes again). Shared by sync-first
 * delivery (the engine's per-receiver circuits) and channels with their own (the HTTP channel's
 * per-endpoint circuits), so both follow one design; each adds its own reasons to open (slow calls,
 * failure rates, a receiver's Retry-After) by calling {@link #open}.
 *
 * <p>Times are epoch milliseconds of the caller's injected clock. Thread-safe.
 */
public final class CircuitBreaker {
  /** The circuit's state at a given time. */
  public enum State {
    CLOSED,
    OPEN,
    HALF_OPEN
  }

  /** How a half-open circuit lets calls through. */
  public enum Probing {
    /** One probe at a time; its success closes the circuit, its failure opens it again. */
    ONE_PROBE,
    /**
     * A growing share of calls (1 in 16, 8, 4, 2, then all) as long as attempts succeed; any failure
     * opens it again.
     */
    RAMP_UP
  }

  /** The answer to a call: go, go as the half-open probe, or hold back. */
  public enum Admission {
    GO,
    PROBE,
    /** Open: held back until {@link #openUntil}. */
    HELD_OPEN,
    /** Half-open: held back while a probe runs, or outside the ramp's share. */
    HELD_HALF_OPEN
  }

  /** The first share a {@link Probing#RAMP_UP} circuit lets through: 1 in this many. */
  private static final int RAMP_START = 16;

  private final int failureThreshold;
  private final Probing probing;

  // guarded by this
  private int consecutiveFailures;
  private long openUntil;
  /** Opened and not closed since; half-open once the open period has ended. */
  private boolean tripped;
  private boolean probeOut;
  /** RAMP_UP while half-open: let one call in every {@code stride}; halves with each success. */
  private int stride = 1;
  private long calls;

  /**
   * @param failureThreshold consecutive failures that open a closed circuit
   * @param probing how a half-open circuit lets calls through
   */
  public CircuitBreaker(int failureThreshold, Probing probing) {
    if (failureThreshold < 1) {
      throw new IllegalArgumentException("failureThreshold must be >= 1, was " + failureThreshold);
    }
    this.failureThreshold = failureThreshold;
    this.probing = probing;
  }

  public synchronized State state(long now) {
    if (now < openUntil) {
      return State.OPEN;
    }
    return tripped ? State.HALF_OPEN : State.CLOSED;
  }

  /** Whether it has not opened since it last closed, whatever the time (an open one past its period still owes a probe). */
  public synchronized boolean closed() {
    return !tripped;
  }

  /** When the open period ends; meaningful only while {@link State#OPEN}. */
  public synchronized long openUntil() {
    return openUntil;
  }

  public synchronized int consecutiveFailures() {
    return consecutiveFailures;
  }

  /** Whether a call may go now; a {@link Admission#PROBE} must be reported with {@code probe} true. */
  public synchronized Admission admit(long now) {
    return switch (state(now)) {
      case CLOSED -> Admission.GO;
      case OPEN -> Admission.HELD_OPEN;
      case HALF_OPEN -> switch (probing) {
        case ONE_PROBE -> {
          if (probeOut) {
            yield Admission.HELD_HALF_OPEN;
          }
          probeOut = true;
          yield Admission.PROBE;
        }
        case RAMP_UP -> calls++ % stride == 0 ? Admission.GO : Admission.HELD_HALF_OPEN;
      };
    };
  }

  /** Notes that an admitted probe came back without telling anything about the receiver. */
  public synchronized void probeReturned() {
    probeOut = false;
  }

  /** Feeds a successful call; {@code probe}: it was admitted as the probe. */
  public synchronized void success(long now, boolean probe) {
    if (probe) {
      probeOut = false;
    }
    consecutiveFailures = 0;
    if (state(now) != State.HALF_OPEN) {
      return;
    }
    switch (probing) {
      case ONE_PROBE -> {
        if (probe) {
          close();
        }
      }
      case RAMP_UP -> {
        stride = Math.max(1, stride / 2);
        if (stride == 1) {
          close();
        }
      }
    }
  }

  /** Why a failure opened the circuit. */
  public enum Tripped {
    /** It did not. */
    NO,
    /** A half-open circuit's probe failed. */
    PROBE_FAILED,
    /** The threshold of consecutive failures was reached. */
    THRESHOLD
  }

  /**
   * Feeds a failed call; {@code probe}: it was admitted as the probe. Opens the circuit for {@code
   * openMillis} when the probe failed or the threshold is reached.
   */
  public synchronized Tripped failure(long now, boolean probe, long openMillis) {
    countFailure(probe);
    State s = state(now);
    boolean failedProbe = s == State.HALF_OPEN && (probe || probing == Probing.RAMP_UP);
    if (failedProbe) {
      open(now, openMillis);
      return Tripped.PROBE_FAILED;
    }
    if (s == State.CLOSED || probing == Probing.RAMP_UP) {
      if (consecutiveFailures >= failureThreshold) {
        open(now, openMillis);
        return Tripped.THRESHOLD;
      }
    }
    return Tripped.NO;
  }

  /** Counts a failed call without deciding whether it opens the circuit (the caller opens it for its own reason). */
  public synchronized void countFailure(boolean probe) {
    if (probe) {
      probeOut = false;
    }
    consecutiveFailures++;
  }

  /** Whether a half-open circuit's probe is out. */
  public synchronized boolean probeOut() {
    return probeOut;
  }

  /** Opens the circuit for at least {@code millis} from now (never shortens a running open period). */
  public synchronized void open(long now, long millis) {
    openUntil = Math.max(state(now) == State.OPEN ? openUntil : 0, now + millis);
    tripped = true;
    stride = RAMP_START;
    calls = 0;
  }

  /** Closes the circuit with a clean slate: no failures counted (a probe out still reports back). */
  public synchronized void reset() {
    consecutiveFailures = 0;
    openUntil = 0;
    close();
  }

  private void close() {
    tripped = false;
    stride = 1;
    calls = 0;
  }
}
