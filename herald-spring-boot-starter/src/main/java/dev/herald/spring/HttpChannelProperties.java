package dev.herald.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The webhook channel's settings under {@code herald.http.*}: with {@code herald-channel-http} on the
 * class path the starter configures the {@code http} channel from them (no setting is required). See
 * herald-channel-http's README.
 */
@ConfigurationProperties("herald.http")
public class HttpChannelProperties {
  /** Whether the starter configures the http channel (webhooks) when herald-channel-http is on the class path. */
  private boolean enabled = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }


  /**
   * Whether callback URLs may reach loopback, private (RFC 1918, fc00::/7), link-local and reserved
   * addresses. Cloud metadata addresses still need an allow entry. Off by default: the SSRF guard.
   */
  private boolean allowPrivateNetworks;

  /**
   * Hosts, *.suffix patterns, IP addresses or CIDR blocks always allowed as callback targets, even
   * private ones, e.g. 127.0.0.1, hooks.internal, 10.20.0.0/16.
   */
  private List<String> allow = new ArrayList<>();

  /** Most time to open a connection. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** Time limit of a whole exchange where a definition sets no timeout option. */
  private Duration defaultTimeout = Duration.ofSeconds(10);

  /** Requests in flight per endpoint where a definition sets no max-concurrency option. */
  private int maxConcurrencyPerEndpoint = 16;

  /** Consecutive failures that open an endpoint's circuit. */
  private int circuitFailureThreshold = 5;

  /** How long an open circuit holds deliveries to its endpoint back. */
  private Duration circuitOpenFor = Duration.ofSeconds(30);

  /** Outgoing rate limit of every endpoint where a definition sets no max-rate option, e.g. 100/s; none by default. */
  private String maxRatePerEndpoint;

  /** How long an endpoint may fail without a success before it is disabled (its notices then wait). */
  private Duration disableAfter = Duration.ofDays(5);

  /** How long deliveries to a disabled endpoint are deferred at a time. */
  private Duration disabledRecheck = Duration.ofMinutes(1);

  public String getMaxRatePerEndpoint() {
    return maxRatePerEndpoint;
  }

  public void setMaxRatePerEndpoint(String maxRatePerEndpoint) {
    this.maxRatePerEndpoint = maxRatePerEndpoint;
  }

  public Duration getDisableAfter() {
    return disableAfter;
  }

  public void setDisableAfter(Duration disableAfter) {
    this.disableAfter = disableAfter;
  }

  public Duration getDisabledRecheck() {
    return disabledRecheck;
  }

  public void setDisabledRecheck(Duration disabledRecheck) {
    this.disabledRecheck = disabledRecheck;
  }

  public boolean isAllowPrivateNetworks() {
    return allowPrivateNetworks;
  }

  public void setAllowPrivateNetworks(boolean allowPrivateNetworks) {
    this.allowPrivateNetworks = allowPrivateNetworks;
  }

  public List<String> getAllow() {
    return allow;
  }

  public void setAllow(List<String> allow) {
    this.allow = allow;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getDefaultTimeout() {
    return defaultTimeout;
  }

  public void setDefaultTimeout(Duration defaultTimeout) {
    this.defaultTimeout = defaultTimeout;
  }

  public int getMaxConcurrencyPerEndpoint() {
    return maxConcurrencyPerEndpoint;
  }

  public void setMaxConcurrencyPerEndpoint(int maxConcurrencyPerEndpoint) {
    this.maxConcurrencyPerEndpoint = maxConcurrencyPerEndpoint;
  }

  public int getCircuitFailureThreshold() {
    return circuitFailureThreshold;
  }

  public void setCircuitFailureThreshold(int circuitFailureThreshold) {
    this.circuitFailureThreshold = circuitFailureThreshold;
  }

  public Duration getCircuitOpenFor() {
    return circuitOpenFor;
  }

  public void setCircuitOpenFor(Duration circuitOpenFor) {
    this.circuitOpenFor = circuitOpenFor;
  }

  /**
   * A channel builder with these settings; the caller may add more (an endpoint listener, say) before
   * {@code build()}, which refuses a bad setting naming it.
   */
  public dev.herald.channel.http.HttpChannel.Builder channelBuilder() {
    return dev.herald.channel.http.HttpChannel.builder()
        .allowPrivateNetworks(allowPrivateNetworks)
        .allow(allow.stream().map(String::strip).filter(s -> !s.isEmpty()).toArray(String[]::new))
        .connectTimeout(connectTimeout)
        .defaultTimeout(defaultTimeout)
        .maxConcurrencyPerEndpoint(maxConcurrencyPerEndpoint)
        .circuitFailureThreshold(circuitFailureThreshold)
        .circuitOpenFor(circuitOpenFor)
        .disableAfter(disableAfter)
        .disabledRecheck(disabledRecheck)
        .maxRatePerEndpoint(maxRatePerEndpoint == null || maxRatePerEndpoint.isBlank() ? null : maxRatePerEndpoint);
  }
}
