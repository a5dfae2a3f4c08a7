package dev.herald.server.alerts;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where alerts go, under {@code herald.server.alerts.*}. Which definitions alert, and to whom, is set
 * per definition in its options: {@code alert.email} (comma-separated addresses), {@code
 * alert.webhook} (a URL), {@code alert.recovered=true}; when is its alert policy.
 */
@ConfigurationProperties("herald.server.alerts")
public class AlertProperties implements org.springframework.context.EnvironmentAware {
  /** herald.server.public-url, the base of the console's links when console-url is not set. */
  private String publicUrl;

  @Override
  public void setEnvironment(org.springframework.core.env.Environment environment) {
    this.publicUrl = environment.getProperty("herald.server.public-url");
  }

  /** herald.server.public-url, or null. */
  String publicUrl() {
    return publicUrl;
  }

  /** One alert per definition and endpoint per window; alerts meanwhile are counted into one sent at its end. */
  private Duration window = Duration.ofMinutes(5);
  /** SMTP server for alert e-mail; no e-mail is sent without it. */
  private String smtpHost;
  private int smtpPort = 25;
  private String smtpUsername;
  private String smtpPassword;
  private boolean smtpStartTls;
  /** The From address of alert e-mail. */
  private String from = "herald@localhost";
  /** Signing secrets of alert webhooks ({@code whsec_...}, Standard Webhooks), as for any definition. */
  private String webhookSecrets;
  /**
   * The console's address as people reach it, e.g. https://herald.example.com/console, for the links in
   * alerts. Default: herald.server.public-url followed by /console; without either, links are paths.
   */
  private String consoleUrl;
  /** The environment named in every alert (its subject and content), e.g. production or staging-eu. */
  private String environment;
  /**
   * Where alerts about this server's own connections go, comma-separated e-mail addresses: a broker
   * or mail server unreachable for peer-down-after, and when it is back.
   */
  private String email;
  /** A URL that alerts about this server's connections are posted to (signed like any alert webhook). */
  private String webhook;
  /** How long a broker or mail server may be unreachable before an alert goes to email and webhook. */
  private Duration peerDownAfter = Duration.ofMinutes(1);

  public Duration getWindow() { return window; }
  public void setWindow(Duration window) { this.window = window; }
  public String getSmtpHost() { return smtpHost; }
  public void setSmtpHost(String smtpHost) { this.smtpHost = smtpHost; }
  public int getSmtpPort() { return smtpPort; }
  public void setSmtpPort(int smtpPort) { this.smtpPort = smtpPort; }
  public String getSmtpUsername() { return smtpUsername; }
  public void setSmtpUsername(String smtpUsername) { this.smtpUsername = smtpUsername; }
  public String getSmtpPassword() { return smtpPassword; }
  public void setSmtpPassword(String smtpPassword) { this.smtpPassword = smtpPassword; }
  public boolean isSmtpStartTls() { return smtpStartTls; }
  public void setSmtpStartTls(boolean smtpStartTls) { this.smtpStartTls = smtpStartTls; }
  public String getFrom() { return from; }
  public void setFrom(String from) { this.from = from; }
  public String getConsoleUrl() { return consoleUrl; }
  public void setConsoleUrl(String consoleUrl) { this.consoleUrl = consoleUrl; }
  public String getEnvironment() { return environment; }
  public void setEnvironment(String environment) { this.environment = environment; }
  public String getEmail() { return email; }
  public void setEmail(String email) { this.email = email; }
  public String getWebhook() { return webhook; }
  public void setWebhook(String webhook) { this.webhook = webhook; }
  public Duration getPeerDownAfter() { return peerDownAfter; }
  public void setPeerDownAfter(Duration peerDownAfter) { this.peerDownAfter = peerDownAfter; }
  public String getWebhookSecrets() { return webhookSecrets; }
  public void setWebhookSecrets(String webhookSecrets) { this.webhookSecrets = webhookSecrets; }
}
