package dev.herald.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * A wall-clock sampler (--wall): every few milliseconds, the stacks of the engine's threads
 * ({@code herald-*}, db-scheduler's and the roof's), counted by thread, state, top frame and the
 * nearest Herald frame. Unlike JFR's CPU samples it also sees where threads wait: on a lock, a
 * semaphore, a queue, or the database's answer.
 */
final class WallProfiler implements AutoCloseable {
  private static final long EVERY_MILLIS = 5;

  private final Thread thread;
  private final Map<String, Integer> byThreadState = new HashMap<>();
  private final Map<String, Integer> byWhere = new HashMap<>();
  private volatile boolean done;
  private int rounds;
  private final String name;

  private WallProfiler(String name, boolean on) {
    this.name = name;
    if (!on) {
      thread = null;
      return;
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    thread = Thread.ofPlatform().daemon().name("bench-wall-profiler").start(() -> {
      while (!done) {
        for (ThreadInfo ti : mx.dumpAllThreads(false, false, 64)) {
          String tn = ti.getThreadName();
          if (!watched(tn)) {
            continue;
          }
          String group = tn.replaceAll("-\\d+$", "-*");
          StackTraceElement[] st = ti.getStackTrace();
          String top = st.length == 0 ? "?" : st[0].getClassName().replaceAll(".*\\.", "") + "." + st[0].getMethodName();
          String where = nearest(st);
          synchronized (this) {
            byThreadState.merge(group + "  " + ti.getThreadState(), 1, Integer::sum);
            byWhere.merge(group + "  " + ti.getThreadState() + "  " + top + " <- " + where, 1, Integer::sum);
          }
        }
        synchronized (this) {
          rounds++;
        }
        try {
          Thread.sleep(EVERY_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
  }

  static WallProfiler start(Options o, String name) {
    return new WallProfiler(name, o.wall);
  }

  private static boolean watched(String name) {
    return name.startsWith("herald-") || name.startsWith("roof-") || name.startsWith("db-scheduler")
        || name.startsWith("bench-producer") || name.startsWith("bench-caller") || name.startsWith("HikariPool");
  }

  /** The nearest frame of Herald (or of db-scheduler / the roof), with its line. */
  private static String nearest(StackTraceElement[] st) {
    for (StackTraceElement e : st) {
      String c = e.getClassName();
      if (c.startsWith("dev.herald.") && !c.startsWith("dev.herald.bench.WallProfiler")
          || c.startsWith("com.github.kagkarlsson.scheduler.")) {
        return c.replaceAll(".*\\.", "") + "." + e.getMethodName() + ":" + e.getLineNumber();
      }
    }
    return "-";
  }

  @Override
  public void close() {
    if (thread == null) {
      return;
    }
    done = true;
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    print();
  }

  private synchronized void print() {
    System.out.printf("%n    wall-clock samples of %s: %,d rounds every %d ms%n", name, rounds, EVERY_MILLIS);
    table("    threads by state (share of rounds)", byThreadState, 40);
    table("    where threads are (state, top frame <- nearest Herald/db-scheduler frame)", byWhere, 40);
  }

  private void table(String title, Map<String, Integer> counts, int top) {
    Table t = new Table(title, "what", "samples", "% of rounds");
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> t.row(e.getKey(), e.getValue(), 100.0 * e.getValue() / Math.max(1, rounds)));
    t.print();
  }
}
