package dev.herald.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What the machine and the JVM did to every thread during a run, so that a latency tail can be told
 * apart from the system measured: a thread that asks to sleep 1 ms, over and over, records how much
 * longer it slept (scheduling delays, safepoints, GC pauses: jHiccup's idea); GC pauses are counted
 * from the JVM's notifications.
 */
final class Hiccups implements AutoCloseable {
  /** Stalls at least this long are kept with their time, to set beside late deliveries. */
  static final long EVENT_NANOS = 10_000_000;

  private final Latencies hiccups = new Latencies();
  private final java.util.Queue<long[]> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean done;
  private final AtomicLong gcCount = new AtomicLong();
  private final AtomicLong gcMillis = new AtomicLong();
  private final AtomicLong gcMaxMillis = new AtomicLong();
  private final List<Runnable> unregister = new ArrayList<>();

  Hiccups() {
    thread = Thread.ofPlatform().daemon().name("bench-hiccup-meter").start(() -> {
      while (!done) {
        long t0 = System.nanoTime();
        LockSupport.parkNanos(1_000_000);
        long over = System.nanoTime() - t0 - 1_000_000;
        hiccups.recordMicros(Math.max(0, over / 1_000));
        if (over >= EVENT_NANOS) {
          events.add(new long[] {System.currentTimeMillis(), over / 1_000_000});
        }
      }
    });
    NotificationListener listener = (n, h) -> {
      if (n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        // G1's concurrent cycles are reported too; only pauses stop the world
        if (!info.getGcName().contains("Concurrent")) {
          long d = info.getGcInfo().getDuration();
          gcCount.incrementAndGet();
          gcMillis.addAndGet(d);
          gcMaxMillis.accumulateAndGet(d, Math::max);
        }
      }
    };
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        unregister.add(() -> {
          try {
            emitter.removeNotificationListener(listener);
          } catch (Exception e) {
            // gone
          }
        });
      }
    }
  }

  @Override
  public void close() {
    done = true;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    unregister.forEach(Runnable::run);
  }

  /**
   * How many of the late events ({epoch millis at handler start, lateness millis}) overlap a stall of
   * the meter thread of at least 10 ms: the machine (or the JVM) stopped every thread then, not just
   * the engine's.
   */
  long overlapping(List<long[]> late) {
    List<long[]> stalls = new ArrayList<>(events);
    long n = 0;
    for (long[] e : late) {
      long from = e[0] - e[1];
      long to = e[0];
      for (long[] s : stalls) {
        // a stall that ended at s[0] after lasting s[1] ms (plus the 1 ms asked for)
        if (s[0] - s[1] - 1 <= to && s[0] >= from) {
          n++;
          break;
        }
      }
    }
    return n;
  }

  int stalls() {
    return events.size();
  }

  /** hiccup_p99_ms, hiccup_p999_ms, hiccup_max_ms, gc_pauses, gc_pause_total_ms, gc_pause_max_ms. */
  void into(Map<String, Object> metrics) {
    metrics.put("hiccup_p99_ms", hiccups.percentileMillis(99));
    metrics.put("hiccup_p999_ms", hiccups.percentileMillis(99.9));
    metrics.put("hiccup_max_ms", hiccups.maxMillis());
    metrics.put("hiccups_over_10ms", events.size());
    metrics.put("gc_pauses", gcCount.get());
    metrics.put("gc_pause_total_ms", gcMillis.get());
    metrics.put("gc_pause_max_ms", gcMaxMillis.get());
  }
}
