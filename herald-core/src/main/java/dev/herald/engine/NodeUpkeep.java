package dev.herald.engine;

import dev.herald.EngineSettings;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's scheduled upkeep, beside the pipeline: the heartbeat ({@link Ownership#heartbeat}), the
 * backlog count for flow control, and
 * housekeeping (definitions, silent nodes, old requests, history past its retention).
 */
final class NodeUpkeep {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final EngineSettings settings;
  private final NoticeStore store;
  private final Clock clock;
  private final Ownership ownership;
  private final DefinitionCache definitions;
  private final OutcomeWaiters waiters;
  private final Listeners listeners;
  private final BooleanSupplier running;
  private volatile int dueBacklog;

  NodeUpkeep(EngineSettings settings, NoticeStore store, Clock clock, Ownership ownership,
      DefinitionCache definitions, OutcomeWaiters waiters, Listeners listeners, BooleanSupplier running) {
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    this.ownership = ownership;
    this.definitions = definitions;
    this.waiters = waiters;
    this.listeners = listeners;
    this.running = running;
  }

  /**
   * Proves this node alive (or retires an incarnation whose beat failed it), and nothing else: any
   * other work on this thread could delay a beat. Catches everything: a scheduled task that throws
   * never runs again.
   */
  void heartbeat() {
    try {
      ownership.heartbeat();
    } catch (Throwable e) {
      listeners.onEngineError("heartbeat", e);
      log.warn("Herald node {}: heartbeat failed: {}", settings.nodeId(), e.toString());
    }
  }

  /** Notices due and undelivered as last counted (only when a backlog limit is set). */
  int dueBacklog() {
    return dueBacklog;
  }

  void countBacklog() {
    try {
      dueBacklog = store.countDue(clock.instant(), settings.maxBacklog() + 1);
    } catch (Throwable e) {
      listeners.onEngineError("count backlog", e);
    }
  }

  void housekeeping() {
    try {
      waiters.expire(Duration.ofHours(1).toMillis());
      definitions.reload();
      store.forgetSilentNodes(clock.instant().minus(Duration.ofHours(1)));
      store.purgeRequests(clock.instant().minus(Duration.ofDays(1)));
      int total = purge(running);
      if (total > 0) {
        log.info("Herald node {}: purged {} finished notice(s) older than {}", settings.nodeId(), total,
            clock.instant().minus(settings.historyRetention()));
      }
    } catch (Throwable e) {
      listeners.onEngineError("housekeeping", e);
      log.warn("Herald node {}: housekeeping failed: {}", settings.nodeId(), e.getMessage());
    }
  }

  /** Purges history now (what housekeeping does on its own schedule); returns how many were purged. */
  int purgeHistoryNow() {
    return purge(() -> true);
  }

  private int purge(BooleanSupplier goOn) {
    Instant before = clock.instant().minus(settings.historyRetention());
    int total = 0;
    int purged;
    do {
      purged = store.purgeHistory(before, 1_000);
      total += purged;
    } while (purged == 1_000 && goOn.getAsBoolean());
    return total;
  }
}
