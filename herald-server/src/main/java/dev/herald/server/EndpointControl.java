package dev.herald.server;

import dev.herald.InvalidInputException;
import dev.herald.channel.http.EndpointStatus;
import dev.herald.channel.http.HttpChannel;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What admins do to a webhook endpoint (an origin: scheme, host, port), for the API and the console
 * alike: disable, enable, set its own rate limit. Each change is stored (so it holds on every server
 * and across restarts) and applied to this server's channel at once. Bad input throws {@link
 * InvalidInputException} naming the field ({@code url}, {@code reason}, {@code maxRate}).
 */
public final class EndpointControl {
  private final HttpChannel http;
  private final EndpointSettings settings;
  private final Clock clock;

  EndpointControl(HttpChannel http, EndpointSettings settings, Clock clock) {
    this.http = http;
    this.settings = settings;
    this.clock = clock;
  }

  /** The endpoints this server's channel knows, with their state now. */
  public List<EndpointStatus> endpoints() {
    return http.endpoints();
  }

  /** The endpoint's own rate limit, if an admin set one. */
  public Optional<String> ownMaxRate(String endpoint) {
    return http.maxRate(endpoint);
  }

  /** Disables the endpoint of {@code url} (its notices wait until it is enabled); returns the endpoint. */
  public String disable(String url, String reason) {
    String endpoint = endpointOf(url);
    if (reason != null && reason.length() > 500) {
      throw new InvalidInputException("reason", "must be at most 500 characters");
    }
    String why = reason == null || reason.isBlank() ? "disabled by an operator" : "disabled by an operator: " + reason;
    Instant now = clock.instant();
    settings.disabled(endpoint, now, why);
    http.disable(endpoint, why, now);
    return endpoint;
  }

  /** Enables the endpoint of {@code url} again; returns the endpoint. */
  public String enable(String url) {
    String endpoint = endpointOf(url);
    settings.enabled(endpoint);
    http.enable(endpoint);
    return endpoint;
  }

  /** Sets the endpoint's own rate limit ({@code 100/s}), or removes it (null); returns the endpoint. */
  public String maxRate(String url, String rate) {
    String endpoint = endpointOf(url);
    try {
      http.maxRate(endpoint, rate);
    } catch (InvalidInputException e) {
      throw new InvalidInputException("maxRate", e.reason());
    }
    settings.maxRate(endpoint, http.maxRate(endpoint).orElse(null));
    return endpoint;
  }

  private static String endpointOf(String url) {
    if (url == null || url.isBlank()) {
      throw new InvalidInputException("url", "is required: the endpoint, or any URL on it");
    }
    try {
      return HttpChannel.endpointOf(url.strip());
    } catch (InvalidInputException e) {
      throw new InvalidInputException("url", e.reason());
    }
  }
}
