package dev.herald.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The e-mail channel's settings under {@code herald.mail.*}; setting {@code herald.mail.host} (with
 * {@code herald-channel-mail} on the class path) turns the channel on. See herald-channel-mail's
 * README.
 */
@ConfigurationProperties("herald.mail")
public class MailChannelProperties {
  /** The SMTP server. */
  private String host;
  /** The SMTP port: 25, 587 with STARTTLS, 465 with implicit TLS. */
  private int port = 25;
  /** User name for SMTP AUTH; leave unset to send without authenticating. */
  private String username;
  /** Password for SMTP AUTH. */
  private String password;
  /** STARTTLS: disabled, optional (when offered) or required. */
  private String startTls = "optional";
  /** TLS from the first byte (smtps, usually port 465) instead of STARTTLS. */
  private boolean implicitTls;
  /** Hosts trusted without a certificate chain (space-separated, or *): for private relays only. */
  private String trustHosts;
  /** The default sender, e.g. "Shop &lt;noreply@shop.example&gt;"; a definition's from option overrides it. */
  private String from;
  /** TCP connect timeout. */
  private Duration connectTimeout = Duration.ofSeconds(10);
  /** The longest wait for any one reply of the server. */
  private Duration timeout = Duration.ofSeconds(30);
  /** Most sends in flight at once; more are deferred. */
  private int maxConnections = 4;

  public String getHost() {
    return host;
  }

  public void setHost(String host) {
    this.host = host;
  }

  public int getPort() {
    return port;
  }

  public void setPort(int port) {
    this.port = port;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public String getStartTls() {
    return startTls;
  }

  public void setStartTls(String startTls) {
    this.startTls = startTls;
  }

  public boolean isImplicitTls() {
    return implicitTls;
  }

  public void setImplicitTls(boolean implicitTls) {
    this.implicitTls = implicitTls;
  }

  public String getTrustHosts() {
    return trustHosts;
  }

  public void setTrustHosts(String trustHosts) {
    this.trustHosts = trustHosts;
  }

  public String getFrom() {
    return from;
  }

  public void setFrom(String from) {
    this.from = from;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  public int getMaxConnections() {
    return maxConnections;
  }

  public void setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
  }
}
