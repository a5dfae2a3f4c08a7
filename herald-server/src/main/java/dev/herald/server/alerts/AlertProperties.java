package dev.herald.server.alerts;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where alerts go, under {@code herald.server.alerts.*}. Which definitions alert, and to whom, is set
 * per definition in its options: {@code alert.email} (comma-separated addresses), {@code
 * alert.webhook} (a URL), {@code alert.recovered=true}; when is its alert policy.
 */
@ConfigurationProperties("herald.server.alerts")
public class AlertProperties {
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
  public String getWebhookSecrets() { return webhookSecrets; }
  public void setWebhookSecrets(String webhookSecrets) { this.webhookSecrets = webhookSecrets; }
}
