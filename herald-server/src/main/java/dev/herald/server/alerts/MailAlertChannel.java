package dev.herald.server.alerts;

import dev.herald.DeliveryResult;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends alert notices as e-mail over SMTP (Angus Mail): the notice's target is the comma-separated
 * recipients, its payload the alert. A refused or unreachable server is retried like any failed
 * attempt; bad recipient addresses fail the notice for good.
 */
final class MailAlertChannel implements Channel {
  static final String NAME = "alert-mail";

  private final AlertProperties properties;
  private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();

  MailAlertChannel(AlertProperties properties) {
    this.properties = properties;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void validateTarget(String target) {
    // the definition's target is a placeholder: each alert notice names its recipients
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
    return CompletableFuture.supplyAsync(() -> send(delivery), senders);
  }

  private DeliveryResult send(Delivery delivery) {
    if (properties.getSmtpHost() == null || properties.getSmtpHost().isBlank()) {
      return DeliveryResult.retry("herald.server.alerts.smtp-host is not set: no e-mail can be sent");
    }
    InternetAddress[] to;
    try {
      to = InternetAddress.parse(delivery.target(), true);
    } catch (AddressException e) {
      return DeliveryResult.fail("bad recipient address: " + e.getMessage());
    }
    JsonNode alert = JsonMapper.shared().readTree(delivery.notice().payload());
    try {
      MimeMessage m = new MimeMessage(session());
      m.setFrom(new InternetAddress(properties.getFrom()));
      m.setRecipients(Message.RecipientType.TO, to);
      m.setSubject(AlertText.subject(alert), "UTF-8");
      m.setText(AlertText.body(alert), "UTF-8");
      Transport.send(m, properties.getSmtpUsername(), properties.getSmtpPassword());
      return DeliveryResult.delivered("mail sent to " + delivery.target());
    } catch (MessagingException e) {
      return DeliveryResult.retry("SMTP " + properties.getSmtpHost() + ":" + properties.getSmtpPort() + ": "
          + e.getMessage());
    }
  }

  private Session session() {
    Properties p = new Properties();
    p.put("mail.smtp.host", properties.getSmtpHost());
    p.put("mail.smtp.port", String.valueOf(properties.getSmtpPort()));
    p.put("mail.smtp.connectiontimeout", "10000");
    p.put("mail.smtp.timeout", "10000");
    p.put("mail.smtp.writetimeout", "10000");
    p.put("mail.smtp.auth", String.valueOf(properties.getSmtpUsername() != null));
    p.put("mail.smtp.starttls.enable", String.valueOf(properties.isSmtpStartTls()));
    return Session.getInstance(p);
  }

  @Override
  public void close() {
    senders.shutdown();
  }
}
