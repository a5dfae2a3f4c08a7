package dev.herald.server;

import dev.herald.channel.http.EndpointListener;
import dev.herald.channel.http.EndpointStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An endpoint the webhook channel disabled: the alert (a WARN line on logger {@code
 * dev.herald.server.alerts}) and the flag stored, so that it stays disabled across restarts and on
 * the other servers.
 */
final class EndpointAlerts implements EndpointListener {
  private static final Logger ALERTS = LoggerFactory.getLogger("dev.herald.server.alerts");

  private final EndpointSettings settings;

  EndpointAlerts(EndpointSettings settings) {
    this.settings = settings;
  }

  @Override
  public void onDisabled(EndpointStatus endpoint) {
    ALERTS.warn("ALERT endpoint {} disabled: {}. Its notices wait (not attempted, not DEAD) until an operator"
        + " enables it: POST /api/v1/endpoints/enable {\"url\": \"{}\"}", endpoint.endpoint(),
        endpoint.disabledReason(), endpoint.endpoint());
    settings.disabled(endpoint.endpoint(), endpoint.disabledAt(), endpoint.disabledReason());
  }
}
