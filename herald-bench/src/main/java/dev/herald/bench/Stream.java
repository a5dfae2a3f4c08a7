package dev.herald.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop stream: notice k is created at {@code start + k / rate}, by one of a few producer
 * threads, whether or not earlier ones are done (so a slow create shows as a lower achieved rate and
 * later creation, not as a silently slower schedule).
 */
final class Stream {
  /** Creates notice number {@code seq}. */
  interface Create {
    void create(long seq) throws Exception;
  }

  /** What the producers did: how many, how fast, how long each create took, and failures. */
  record Stats(long total, long measuredFrom, double seconds, double measuredSeconds, long measuredCreated,
      long failures, String firstFailure, Latencies createLatency) {
    double achievedRate() {
      return measuredCreated / measuredSeconds;
    }
  }

  private Stream() {}

  static Stats run(String label, int rate, double warmupSeconds, double seconds, int producers, Create create) {
    long total = Math.round(rate * (warmupSeconds + seconds));
    long measuredFrom = Math.round(rate * warmupSeconds);
    double periodNanos = 1e9 / rate;
    AtomicLong next = new AtomicLong();
    AtomicLong created = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    AtomicLong measuredStartNanos = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lastCreatedNanos = new AtomicLong();
    String[] firstFailure = new String[1];
    Latencies createLatency = new Latencies();
    long start = System.nanoTime() + 50_000_000L;
    List<Thread> threads = new ArrayList<>();
    try (Progress p = new Progress(label + " created", created::get, total)) {
      for (int t = 0; t < producers; t++) {
        threads.add(Thread.ofPlatform().name("bench-producer-" + t).start(() -> {
          while (true) {
            long k = next.getAndIncrement();
            if (k >= total) {
              return;
            }
            long at = start + (long) (k * periodNanos);
            long wait;
            while ((wait = at - System.nanoTime()) > 0) {
              LockSupport.parkNanos(wait);
            }
            long t0 = System.nanoTime();
            if (k == measuredFrom) {
              measuredStartNanos.set(at);
            }
            try {
              create.create(k);
              long t1 = System.nanoTime();
              if (k >= measuredFrom) {
                createLatency.recordMicros((t1 - t0) / 1_000);
              }
              created.incrementAndGet();
              lastCreatedNanos.accumulateAndGet(t1, Math::max);
            } catch (Exception e) {
              if (failures.incrementAndGet() == 1) {
                firstFailure[0] = e.toString();
              }
            }
          }
        }));
      }
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
    long end = lastCreatedNanos.get();
    long measuredStart = Math.min(measuredStartNanos.get(), end);
    return new Stats(total, measuredFrom, (end - start) / 1e9, Math.max(1e-9, (end - measuredStart) / 1e9),
        Math.max(0, created.get() - measuredFrom), failures.get(), firstFailure[0], createLatency);
  }

  /** The sequence number in a payload written as {@code {"seq":N}}. */
  static long seqOf(String payload) {
    long v = 0;
    boolean digits = false;
    for (int i = 0; i < payload.length(); i++) {
      char c = payload.charAt(i);
      if (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        digits = true;
      } else if (digits) {
        break;
      }
    }
    return v;
  }
}
