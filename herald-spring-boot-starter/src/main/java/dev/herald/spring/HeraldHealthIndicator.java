package dev.herald.spring;

import dev.herald.Herald;
import java.sql.Connection;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** UP when Herald's engine runs and its database answers; details: node id, running. */
public class HeraldHealthIndicator extends AbstractHealthIndicator {
  private final Herald herald;

  public HeraldHealthIndicator(Herald herald) {
    super("Herald health check failed");
    this.herald = herald;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws Exception {
    boolean running = herald.isRunning();
    builder.withDetail("nodeId", herald.settings().nodeId()).withDetail("running", running);
    boolean databaseUp;
    try (Connection c = herald.dataSource().getConnection()) {
      databaseUp = c.isValid(2);
    }
    builder.withDetail("database", databaseUp ? "answers" : "does not answer");
    if (running && databaseUp) {
      builder.up();
    } else {
      builder.down();
    }
  }
}
