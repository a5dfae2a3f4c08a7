package dev.herald.server;

import dev.herald.NoticeReports;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hourly: forgets the tenant rows of notices the core purged from its history. */
final class ServerHousekeeping implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerHousekeeping.class);
  /** Rows younger than this are kept: their notice may still be in its creating transaction. */
  private static final Duration GRACE = Duration.ofHours(1);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("herald-server-housekeeping").factory());

  ServerHousekeeping(NoticeOwners owners, NoticeReports reports) {
    timer.scheduleWithFixedDelay(() -> {
      try {
        int n = owners.purgeOrphans(System.currentTimeMillis() - GRACE.toMillis(), reports);
        if (n > 0) {
          log.info("Forgot the tenants of {} notices purged from history", n);
        }
      } catch (RuntimeException e) {
        log.warn("Cannot purge the tenants of purged notices: {}", e.getMessage());
      }
    }, 10, 60, TimeUnit.MINUTES);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
