package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * An operator breaks the RabbitMQ broker (Qpid Broker-J in this JVM): within seconds the log, the
 * health endpoint, the console, Prometheus and an alert (mail and webhook) say so, and each says it
 * again when the broker is back, with no notice sent meanwhile to find out.
 */
class BrokenBrokerTest {
  static final String PASSWORD = "broker-watch-passphrase-7";

  @Test
  void aStoppedBrokerIsSeenEverywhereAndAlertedAndSoIsItsReturn() throws Exception {
    GreenMail smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    smtp.start();
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    try (EmbeddedBroker broker = new EmbeddedBroker(); Receiver pager = new Receiver();
        TestServer server = TestServer.start(TestServer.tempDir(),
            "--herald.amqp.brokers.main=amqp://guest:guest@127.0.0.1:" + broker.port() + "/",
            "--herald.server.alerts.smtp-host=127.0.0.1", "--herald.server.alerts.smtp-port=" + smtp.getSmtp().getPort(),
            "--herald.server.alerts.email=ops@example.com",
            "--herald.server.alerts.webhook=" + pager.url("/alerts"),
            "--herald.server.alerts.peer-down-after=1s",
            "--herald.server.alerts.environment=staging-eu",
            "--herald.server.alerts.console-url=https://herald.example.com/console",
            "--herald.health.channel-down-after=1s",
            "--management.endpoint.health.show-details=always",
            "--herald.server.console.admin-password=" + PASSWORD)) {
      Logger health = (Logger) LoggerFactory.getLogger("dev.herald.health");
      log.start();
      health.addAppender(log);
      TestServer.Api anonymous = server.as(null);
      await().atMost(Duration.ofSeconds(15)).until(() -> amqpHealth(anonymous).path("status").asString("").equals("UP")
          && prometheus(anonymous).contains("herald_channel_peer_up{channel=\"amqp\",peer=\"main\"} 1.0"));

      broker.stop();
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        assertThat(amqpHealth(anonymous).path("status").asString()).isEqualTo("DOWN");
        assertThat(prometheus(anonymous)).contains("herald_channel_peer_up{channel=\"amqp\",peer=\"main\"} 0.0");
      });
      assertThat(amqpHealth(anonymous).path("details").path("exceeded").toString()).contains("broker 'main' down for");
      assertThat(lines(log)).anySatisfy(l -> assertThat(l)
          .startsWith("Herald amqp broker 'main' (amqp://127.0.0.1:" + broker.port() + "/) is DOWN: connection lost"));

      ConsoleSession console = new ConsoleSession(server);
      console.login("admin", PASSWORD);
      String endpoints = console.get("/console/endpoints").body();
      assertThat(endpoints).contains("Brokers and mail servers").contains("data-peer=\"main\"")
          .contains("peer-state down");
      assertThat(console.get("/console").body()).contains("id=\"connections-down\"").contains("amqp broker main DOWN for");

      await().atMost(Duration.ofSeconds(20)).until(() -> pager.requests.stream()
          .anyMatch(r -> json(r.body()).path("kind").asString("").equals("peer-down")));
      JsonNode down = pager.requests.stream().map(r -> json(r.body()))
          .filter(j -> j.path("kind").asString("").equals("peer-down")).findFirst().orElseThrow();
      assertThat(down.path("environment").asString()).isEqualTo("staging-eu");
      assertThat(down.path("server").asString()).isNotBlank();
      assertThat(down.path("channel").asString()).isEqualTo("amqp");
      assertThat(down.path("peer").asString()).isEqualTo("main");
      assertThat(down.path("links").path("endpoints").asString()).isEqualTo("https://herald.example.com/console/endpoints");
      await().atMost(Duration.ofSeconds(20)).until(() -> subjects(smtp).stream()
          .anyMatch(s -> s.startsWith("[Herald staging-eu] DOWN amqp broker 'main' for ")));
      MimeMessage mail = smtp.getReceivedMessages()[0];
      String body = GreenMailUtil.getBody(mail);
      assertThat(body).contains("https://herald.example.com/console/endpoints").contains("<a href=");

      broker.start();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(amqpHealth(anonymous).path("status").asString()).isEqualTo("UP");
        assertThat(prometheus(anonymous)).contains("herald_channel_peer_up{channel=\"amqp\",peer=\"main\"} 1.0");
      });
      assertThat(lines(log)).anySatisfy(l -> assertThat(l).contains("broker 'main'").contains("is UP again after"));
      assertThat(lines(log)).as("a line per change, not per attempt or probe").hasSizeLessThanOrEqualTo(3);
      await().atMost(Duration.ofSeconds(20)).until(() -> pager.requests.stream()
          .anyMatch(r -> json(r.body()).path("kind").asString("").equals("peer-up")));
      await().atMost(Duration.ofSeconds(20)).until(() -> subjects(smtp).stream()
          .anyMatch(s -> s.startsWith("[Herald staging-eu] UP amqp broker 'main' again after ")));
    } finally {
      ((Logger) LoggerFactory.getLogger("dev.herald.health")).detachAppender(log);
      smtp.stop();
    }
  }

  private static JsonNode amqpHealth(TestServer.Api anonymous) {
    return anonymous.get("/actuator/health").json().path("components").path("heraldChannels").path("components")
        .path("amqp");
  }

  private static String prometheus(TestServer.Api anonymous) {
    return anonymous.get("/actuator/prometheus").text();
  }

  private static JsonNode json(String text) {
    return TestServer.JSON.readTree(text);
  }

  private static List<String> lines(ListAppender<ILoggingEvent> log) {
    return log.list.stream().filter(e -> e.getFormattedMessage().contains("amqp broker"))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }

  private static List<String> subjects(GreenMail smtp) {
    return java.util.Arrays.stream(smtp.getReceivedMessages()).map(m -> {
      try {
        return m.getSubject();
      } catch (jakarta.mail.MessagingException e) {
        throw new IllegalStateException(e);
      }
    }).distinct().toList();
  }
}
