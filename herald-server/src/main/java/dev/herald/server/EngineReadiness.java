package dev.herald.server;

import dev.herald.Herald;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP while Herald's engine runs. Part of the readiness group ({@code /actuator/health/readiness}),
 * beside Spring's readiness state: a node whose engine has not started (migrations, start-up) or is
 * stopping (SIGTERM) is taken out of its load balancer. Reads no database, so probes stay cheap and a
 * database outage does not take every replica out at once (the API answers 503 then).
 */
final class EngineReadiness implements HealthIndicator {
  private final Herald herald;

  EngineReadiness(Herald herald) {
    this.herald = herald;
  }

  @Override
  public Health health() {
    return herald.isRunning() ? Health.up().build() : Health.down().withDetail("engine", "not running").build();
  }
}
