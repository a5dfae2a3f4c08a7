package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.spi.Channel;
import dev.herald.spi.PeerStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * One channel's health: the state of what it talks to ({@link Channel#peers()}). A broker or mail
 * server DOWN for at least {@code herald.health.channel-down-after} turns it to {@code
 * herald.health.channel-status} (DOWN by default); one down for less is shown in the details only. Webhook
 * endpoints are receivers, not the channel's own infrastructure: those DOWN are listed (the first
 * {@value #MAX_LISTED}) and counted, and never change the status. The components are grouped under
 * {@code heraldChannels}, one per channel: {@code heraldChannels/amqp}, {@code heraldChannels/http}.
 */
public class HeraldChannelHealthIndicator implements HealthIndicator {
  /** Endpoints listed in the details at most. */
  static final int MAX_LISTED = 20;

  private final Herald herald;
  private final Channel channel;
  private final Duration downAfter;
  private final Status status;

  public HeraldChannelHealthIndicator(Herald herald, Channel channel, Duration downAfter, String status) {
    this.herald = herald;
    this.channel = channel;
    this.downAfter = downAfter;
    this.status = new Status(status);
  }

  @Override
  public Health health() {
    Instant now = herald.clock().instant();
    Map<String, Object> infrastructure = new LinkedHashMap<>();
    List<Map<String, Object>> endpointsDown = new ArrayList<>();
    int endpoints = 0;
    int endpointsDownCount = 0;
    List<String> downTooLong = new ArrayList<>();
    for (PeerStatus p : channel.peers()) {
      if (p.kind().infrastructure()) {
        infrastructure.put(p.peer(), describe(p, now));
        if (p.state() == PeerStatus.State.DOWN && p.downFor(now).compareTo(downAfter) >= 0) {
          downTooLong.add(p.kind().words() + " '" + p.peer() + "' down for " + p.downFor(now).withNanos(0)
              + " (>= herald.health.channel-down-after " + downAfter + ")");
        }
      } else {
        endpoints++;
        if (p.state() == PeerStatus.State.DOWN) {
          endpointsDownCount++;
          if (endpointsDown.size() < MAX_LISTED) {
            endpointsDown.add(describe(p, now));
          }
        }
      }
    }
    Health.Builder b = downTooLong.isEmpty() ? Health.up() : Health.status(status).withDetail("exceeded", downTooLong);
    if (!infrastructure.isEmpty()) {
      b.withDetail("peers", infrastructure);
    }
    if (endpoints > 0) {
      b.withDetail("endpoints", endpoints).withDetail("endpointsDown", endpointsDownCount);
      if (!endpointsDown.isEmpty()) {
        b.withDetail("endpointsDownFirst", endpointsDown);
      }
    }
    return b.build();
  }

  private static Map<String, Object> describe(PeerStatus p, Instant now) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("peer", p.peer());
    if (p.address() != null) {
      d.put("address", p.address());
    }
    d.put("state", p.state().name());
    if (p.since() != null) {
      d.put("since", p.since().toString());
    }
    if (p.state() == PeerStatus.State.DOWN) {
      d.put("downFor", p.downFor(now).withNanos(0).toString());
      d.put("failedAttempts", p.failures());
    }
    if (p.lastError() != null) {
      d.put("lastError", p.lastError());
    }
    return d;
  }
}
