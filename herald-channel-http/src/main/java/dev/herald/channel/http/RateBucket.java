package dev.herald.channel.http;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;

/**
 * One endpoint's token bucket (as the generic cell rate algorithm: a theoretical arrival time instead
 * of a token count), with reservations: a notice over the rate is given the next free slot and told
 * to come back then, and when it does it goes without taking another. So each waiting notice is
 * deferred once, to its own turn, instead of all of them polling for the next token. Thread-safe.
 */
final class RateBucket {
  /** A notice that comes back this early for its slot goes anyway: timers are not exact. */
  private static final long EARLY_NANOS = 2_000_000;
  /** Reservations of notices that never came back (cancelled, taken by another node) are dropped after this. */
  private static final long FORGET_NANOS = 120_000_000_000L;

  private long tat;
  private boolean started;
  private final Map<UUID, Long> reservations = new HashMap<>();
  private int sinceSweep;

  /**
   * Takes a turn for {@code notice}: 0 if it may go now, else how many nanoseconds until its reserved
   * slot (which it keeps: coming back then, it goes).
   */
  synchronized long take(UUID notice, Rate rate, long now) {
    Long slot = reservations.remove(notice);
    if (slot != null) {
      if (slot - now <= EARLY_NANOS) {
        return 0;
      }
      reservations.put(notice, slot);
      return slot - now;
    }
    if (!started) {
      tat = now;
      started = true;
    }
    long interval = rate.intervalNanos();
    long tolerance = interval * (rate.burst() - 1);
    long earliest = tat - tolerance;
    if (now - earliest >= 0) {
      tat = Math.max(tat - now, 0) + now + interval;
      return 0;
    }
    tat += interval;
    reservations.put(notice, earliest);
    if (++sinceSweep >= 1024) {
      sweep(now);
    }
    return earliest - now;
  }

  /** Gives a turn taken now back to {@code notice} (it could not go after all): it goes first when it returns. */
  synchronized void giveBack(UUID notice, long now) {
    reservations.put(notice, now);
  }

  /** Reservations held now. */
  synchronized int reserved() {
    return reservations.size();
  }

  synchronized boolean idle(long now) {
    sweep(now);
    return reservations.isEmpty();
  }

  private void sweep(long now) {
    sinceSweep = 0;
    for (Iterator<Long> it = reservations.values().iterator(); it.hasNext(); ) {
      if (now - it.next() > FORGET_NANOS) {
        it.remove();
      }
    }
  }
}
