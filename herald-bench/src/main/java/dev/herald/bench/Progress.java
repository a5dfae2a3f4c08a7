package dev.herald.bench;

import java.util.function.LongSupplier;

/** Prints how far a long step has come every few seconds, on a daemon thread, until closed. */
final class Progress implements AutoCloseable {
  static volatile boolean enabled = true;
  private static final long EVERY_MILLIS = 5_000;

  private final Thread thread;
  private volatile boolean done;

  Progress(String label, LongSupplier count, long total) {
    long start = System.nanoTime();
    if (!enabled) {
      thread = null;
      return;
    }
    thread = Thread.ofPlatform().daemon().name("bench-progress").start(() -> {
      long last = count.getAsLong();
      long lastAt = System.nanoTime();
      while (!done) {
        try {
          Thread.sleep(EVERY_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
        if (done) {
          return;
        }
        long now = System.nanoTime();
        long c = count.getAsLong();
        double rate = (c - last) / ((now - lastAt) / 1e9);
        System.out.printf("    .. %s: %,d%s, %,.0f/s over the last %ds, %ds in%n", label, c,
            total > 0 ? String.format(" of %,d", total) : "", rate, EVERY_MILLIS / 1000, (now - start) / 1_000_000_000L);
        last = c;
        lastAt = now;
      }
    });
  }

  /** Turns progress lines off until closed. */
  static Quiet quiet() {
    boolean was = enabled;
    enabled = false;
    return () -> enabled = was;
  }

  interface Quiet extends AutoCloseable {
    @Override
    void close();
  }

  @Override
  public void close() {
    done = true;
    if (thread != null) {
      thread.interrupt();
    }
  }
}
