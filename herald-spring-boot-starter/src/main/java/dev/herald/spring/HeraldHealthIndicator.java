package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.NoticeCounts;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Herald's health: DOWN unless the engine runs and its database answers; past a threshold of {@code
 * herald.health.*} (backlog, its age, recent DEAD notices) the configured status, OUT_OF_SERVICE by
 * default; UP otherwise. Details: nodeId, running, database, backlog (live notices past their fire
 * time, as {@link NoticeCounts} defines it for the gauges and the console too), backlogAge (ISO-8601:
 * since the oldest of them was due), dead, deadWindow and, past a threshold, exceeded.
 */
public class HeraldHealthIndicator extends AbstractHealthIndicator {
  /** DEAD notices are counted up to this; more show as this figure. */
  static final int COUNT_CAP = 100_000;

  private final Herald herald;
  private final HeraldProperties.Health thresholds;

  public HeraldHealthIndicator(Herald herald) {
    this(herald, new HeraldProperties.Health());
  }

  public HeraldHealthIndicator(Herald herald, HeraldProperties.Health thresholds) {
    super("Herald health check failed");
    this.herald = herald;
    this.thresholds = thresholds;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws Exception {
    boolean running = herald.isRunning();
    builder.withDetail("nodeId", herald.settings().nodeId()).withDetail("running", running);
    Instant now = herald.clock().instant();
    try (Connection c = herald.dataSource().getConnection()) {
      boolean databaseUp = c.isValid(2);
      builder.withDetail("database", databaseUp ? "answers" : "does not answer");
      if (!running || !databaseUp) {
        builder.down();
        return;
      }
      // the backlog as the gauges and the console count it
      NoticeCounts total = NoticeCounts.total(herald.reports().countByDefinition(now).values());
      long backlog = total.backlog();
      Duration oldestAge = total.backlogAge(now);
      Duration window = thresholds.getDeadWindow();
      long dead = herald.reports().countDead(now.minus(window), COUNT_CAP);
      builder.withDetail("backlog", backlog).withDetail("backlogAge", oldestAge.toString())
          .withDetail("dead", dead).withDetail("deadWindow", window.toString());

      List<String> exceeded = new ArrayList<>();
      if (thresholds.getMaxBacklog() != null && backlog > thresholds.getMaxBacklog()) {
        exceeded.add("backlog " + backlog + " > herald.health.max-backlog " + thresholds.getMaxBacklog());
      }
      if (thresholds.getMaxOldestDueAge() != null && oldestAge.compareTo(thresholds.getMaxOldestDueAge()) > 0) {
        exceeded.add("backlogAge " + oldestAge + " > herald.health.max-oldest-due-age "
            + thresholds.getMaxOldestDueAge());
      }
      if (thresholds.getMaxDead() != null && dead > thresholds.getMaxDead()) {
        exceeded.add("dead " + dead + " > herald.health.max-dead " + thresholds.getMaxDead());
      }
      if (exceeded.isEmpty()) {
        builder.up();
      } else {
        builder.status(new Status(thresholds.getStatus())).withDetail("exceeded", exceeded);
      }
    }
  }
}
