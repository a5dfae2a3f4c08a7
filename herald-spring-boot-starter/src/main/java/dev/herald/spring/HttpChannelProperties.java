package dev.herald.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The webhook channel's settings under {@code herald.http.*}: with {@code herald-channel-http} on the
 * class path and no {@code HttpChannel} bean of the application's own, the starter makes the channel
 * (off with {@code herald.http.enabled=false}). See herald-channel-http's README.
 */
@ConfigurationProperties("herald.http")
public class HttpChannelProperties {
  /** Whether the starter makes the http channel when the module is on the class path. */
  private boolean enabled = true;
  /** Whether targets may be on loopback, private, link-local and reserved addresses (off: the SSRF guard). */
  private boolean allowPrivateNetworks;
  /** Hosts, *.suffix patterns, IP addresses or CIDR blocks always allowed as targets, e.g. hooks.internal. */
  private List<String> allow = new ArrayList<>();
  /** Most time to open a connection. */
  private Duration connectTimeout = Duration.ofSeconds(5);
  /** Time limit of a whole exchange where a definition sets no timeout option. */
  private Duration defaultTimeout = Duration.ofSeconds(10);
  /** Requests in flight per endpoint where a definition sets no max-concurrency option. */
  private int maxConcurrencyPerEndpoint = 16;
  /** Outgoing rate limit of every endpoint where a definition sets no max-rate option, e.g. 100/s; none by default. */
  private String maxRatePerEndpoint;
  /**
   * An HTTP proxy every webhook goes through, e.g. http://proxy.internal:3128 (https targets through a
   * CONNECT tunnel); none by default (the JVM's proxy settings). The SSRF guard still checks every target.
   */
  private String proxy;
  /** Hosts reached without the proxy: host names, *.suffix patterns, IP addresses. */
  private List<String> proxyExclude = new ArrayList<>();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
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

  public String getMaxRatePerEndpoint() {
    return maxRatePerEndpoint;
  }

  public void setMaxRatePerEndpoint(String maxRatePerEndpoint) {
    this.maxRatePerEndpoint = maxRatePerEndpoint;
  }

  public String getProxy() {
    return proxy;
  }

  public void setProxy(String proxy) {
    this.proxy = proxy;
  }

  public List<String> getProxyExclude() {
    return proxyExclude;
  }

  public void setProxyExclude(List<String> proxyExclude) {
    this.proxyExclude = proxyExclude;
  }
}
