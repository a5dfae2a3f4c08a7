package dev.herald.server.alerts;

import dev.herald.Herald;
import dev.herald.NoticeRequest;
import dev.herald.spi.Channel;
import dev.herald.spi.PeerStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Alerts people when a broker or mail server this server talks to stays unreachable for {@code
 * herald.server.alerts.peer-down-after}, and again when it is back: to {@code herald.server.alerts.email}
 * and {@code .webhook}, as notices of the alert definitions (stored, retried). Each server watches its
 * own channels; an idempotency key per peer and window keeps servers that see the same outage at
 * about the same time to one alert.
 */
final class PeerAlerts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AlertService.class);
  /** How often the peers are looked at. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(2);

  private final Supplier<Herald> herald;
  private final AlertProperties properties;
  private final Clock clock;
  /** Peers an alert was sent for, with the start of the outage it was about. */
  private final Map<String, Instant> alerted = new ConcurrentHashMap<>();
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("herald-peer-alerts").factory());

  PeerAlerts(Supplier<Herald> herald, AlertProperties properties, Clock clock) {
    this.herald = herald;
    this.properties = properties;
    this.clock = clock;
  }

  void start() {
    worker.scheduleWithFixedDelay(this::check, CHECK_EVERY.toMillis(), CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One look at every channel's brokers and mail servers. */
  void check() {
    try {
      Instant now = clock.instant();
      for (Channel c : herald.get().channels()) {
        for (PeerStatus p : c.peers()) {
          if (p.kind().infrastructure()) {
            check(p, now);
          }
        }
      }
    } catch (RuntimeException e) {
      // the next check tries again; an alert not enqueued is not lost, the peer is still down
      log.warn("Herald alerts: cannot check brokers and mail servers: {}", e.toString());
    }
  }

  private void check(PeerStatus p, Instant now) {
    String key = p.channel() + "/" + p.peer();
    Instant alertedFor = alerted.get(key);
    if (p.state() == PeerStatus.State.DOWN) {
      if ((alertedFor == null || !alertedFor.equals(p.since()))
          && p.downFor(now).compareTo(properties.getPeerDownAfter()) >= 0) {
        send(AlertMessage.PEER_DOWN, p, p.since(), now, key);
        alerted.put(key, p.since());
      }
    } else if (alertedFor != null) {
      send(AlertMessage.PEER_UP, p, alertedFor, now, key);
      alerted.remove(key);
    }
  }

  private void send(String kind, PeerStatus p, Instant downSince, Instant now, String key) {
    Herald h = herald.get();
    ObjectNode alert = AlertMessage.peer(AlertMessage.Source.of(h.settings().nodeId(), properties,
        properties.publicUrl()), kind, p, downSince, now);
    String description = "alert: " + p.channel() + " " + p.kind().words() + " '" + p.peer() + "' "
        + (kind.equals(AlertMessage.PEER_DOWN) ? "down" : "up again");
    // one alert per peer, kind and window, however many servers saw the outage
    long window = Math.max(1, properties.getWindow().toMillis());
    String idempotency = kind + "/" + key + "/" + downSince.toEpochMilli() / window;
    List<NoticeRequest> requests = new ArrayList<>();
    if (properties.getEmail() != null && !properties.getEmail().isBlank()) {
      requests.add(NoticeRequest.of(AlertService.MAIL_DEFINITION, alert.toString()).target(properties.getEmail().strip())
          .description(description).idempotencyKey(idempotency));
    }
    if (properties.getWebhook() != null && !properties.getWebhook().isBlank()) {
      requests.add(NoticeRequest.of(AlertService.WEBHOOK_DEFINITION, alert.toString())
          .target(properties.getWebhook().strip()).description(description).idempotencyKey(idempotency));
    }
    if (requests.isEmpty()) {
      log.warn("Herald {}: no alert sent, set herald.server.alerts.email or herald.server.alerts.webhook to get one",
          description);
      return;
    }
    h.enqueueAll(requests);
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
