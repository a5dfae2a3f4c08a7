package dev.herald.server.alerts;

import dev.herald.DeliveryResult;
import dev.herald.spi.Channel;
import dev.herald.channel.mail.SmtpOutcome;
import dev.herald.health.PeerHealth;
import dev.herald.spi.Delivery;
import dev.herald.spi.PeerStatus;
import java.time.Clock;
import java.util.List;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends alert notices as e-mail over SMTP (Angus Mail): the notice's target is the comma-separated
 * recipients, its payload the alert ({@link AlertMessage}), rendered as plain text and HTML ({@link
 * AlertMail}). A server that cannot be reached, or refuses for now (4xx), is retried like any failed
 * attempt; a refusal for good (5xx: unknown recipients, say) or bad addresses fail the notice. The
 * attempt log keeps the server's reply; the server's state is a peer of this channel ({@link #peers()}).
 */
final class MailAlertChannel implements Channel {
  static final String NAME = "alert-mail";

  private final AlertProperties properties;
  private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
  private final PeerHealth health = new PeerHealth(NAME, PeerStatus.Kind.MAIL_SERVER, Clock.systemUTC(), 1,
      PeerHealth.DEFAULT_REMIND_EVERY);

  MailAlertChannel(AlertProperties properties) {
    this.properties = properties;
    if (configured()) {
      health.register(server(), "smtp://" + server());
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void validateTarget(String target) {
    // each alert notice names its recipients, checked by AlertDestinations before it is enqueued
  }

  /** Yes: the alert definition has no target, each alert notice names its recipients. */
  @Override
  public boolean perNoticeTargets() {
    return true;
  }

  /** The alerts' mail server, once one is set. */
  @Override
  public List<PeerStatus> peers() {
    return health.all();
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
    return CompletableFuture.supplyAsync(() -> send(delivery), senders);
  }

  private boolean configured() {
    return properties.getSmtpHost() != null && !properties.getSmtpHost().isBlank();
  }

  private String server() {
    return properties.getSmtpHost() + ":" + properties.getSmtpPort();
  }

  private DeliveryResult send(Delivery delivery) {
    if (!configured()) {
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
      m.setSubject(AlertMail.subject(alert), "UTF-8");
      MimeMultipart alternative = new MimeMultipart("alternative");
      MimeBodyPart plain = new MimeBodyPart();
      plain.setText(AlertMail.text(alert), "UTF-8");
      MimeBodyPart rich = new MimeBodyPart();
      rich.setText(AlertMail.html(alert), "UTF-8", "html");
      alternative.addBodyPart(plain);
      alternative.addBodyPart(rich);
      m.setContent(alternative);
      m.setHeader("X-Herald-Notice", delivery.notice().id().toString());
      Transport.send(m, properties.getSmtpUsername(), properties.getSmtpPassword());
      health.succeeded(server());
      return DeliveryResult.delivered("mail sent to " + delivery.target());
    } catch (MessagingException e) {
      DeliveryResult r = SmtpOutcome.of(e, server()); // with the server's reply, e.g. 550 Invalid Addresses
      if (SmtpOutcome.serverAnswered(e)) {
        health.succeeded(server());
      } else {
        health.failed(server(), r.detail());
      }
      return r;
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
