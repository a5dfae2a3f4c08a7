package dev.herald.server;

import dev.herald.channel.http.EndpointStatus;
import dev.herald.channel.http.HttpChannel;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook channel's endpoints as stored: at start, and then every {@code
 * herald.http.endpoint-sync}, so that an endpoint disabled or enabled on one server (or by an
 * operator through another) is so on every server.
 */
final class EndpointSync implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EndpointSync.class);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("herald-endpoint-sync").factory());

  EndpointSync(HttpChannel http, EndpointSettings settings, Duration every) {
    long ms = every.toMillis();
    timer.scheduleWithFixedDelay(() -> {
      try {
        java.time.Instant readAt = java.time.Instant.now();
        apply(http, settings.all(), readAt);
      } catch (RuntimeException e) {
        log.warn("Cannot read endpoint settings: {}", e.getMessage());
      }
    }, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Makes the channel's endpoints match the stored settings: disabled flags and own rates. */
  static void apply(HttpChannel http, List<EndpointSettings.Stored> stored) {
    apply(http, stored, null);
  }

  /**
   * As {@link #apply(HttpChannel, List)}; an endpoint disabled here after {@code readAt} (its flag
   * may not have been stored when the settings were read) stays disabled.
   */
  static void apply(HttpChannel http, List<EndpointSettings.Stored> stored, java.time.Instant readAt) {
    Set<String> disabled = new HashSet<>();
    for (EndpointSettings.Stored s : stored) {
      if (s.disabledAt() != null) {
        disabled.add(s.endpoint());
        http.disable(s.endpoint(), s.disabledReason(), s.disabledAt());
      }
      if (!java.util.Objects.equals(http.maxRate(s.endpoint()).orElse(null), s.maxRate())) {
        http.maxRate(s.endpoint(), s.maxRate());
      }
    }
    for (EndpointStatus e : http.endpoints()) {
      if (e.disabled() && !disabled.contains(e.endpoint()) && readAt != null && e.disabledAt().isBefore(readAt)) {
        http.enable(e.endpoint()); // enabled elsewhere
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
