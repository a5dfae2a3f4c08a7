package dev.herald;

import dev.herald.recurring.Recurring;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires due recurring schedules at the poll interval while Herald runs, on a thread of its own: one
 * slow or failing schedule never holds deliveries back. A failing poll (the database away) is logged
 * once per change, not at every poll.
 */
final class RecurringPoller implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RecurringPoller.class);

  private final Recurring recurring;
  private final Duration interval;
  private ScheduledExecutorService executor;
  private boolean failing;

  RecurringPoller(Recurring recurring, Duration interval) {
    this.recurring = recurring;
    this.interval = interval;
  }

  synchronized void start() {
    if (executor != null) {
      return;
    }
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "herald-recurring");
      t.setDaemon(true);
      return t;
    });
    executor.scheduleWithFixedDelay(this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void poll() {
    try {
      recurring.fireDue();
      if (failing) {
        failing = false;
        log.info("Recurring schedules are polled again");
      }
    } catch (RuntimeException e) {
      if (!failing) {
        failing = true;
        log.warn("Cannot poll recurring schedules (tried again every {}): {}", interval, e.getMessage());
      }
    }
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      try {
        if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
          log.warn("The recurring schedules' poll did not stop within 5s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      executor = null;
    }
  }
}
