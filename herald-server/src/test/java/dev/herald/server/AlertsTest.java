package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Alerts reach people: e-mail to a real SMTP server (GreenMail) and a signed webhook to a real HTTP
 * receiver, grouped per definition and window during an outage, and a "recovered" alert after.
 */
class AlertsTest {
  private final GreenMail smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    smtp.stop();
  }

  @Test
  void anOutageGivesGroupedAlertsByMailAndSignedWebhookThenARecoveredOne() throws Exception {
    smtp.start();
    String secret = "whsec_" + Base64.getEncoder().encodeToString("alert-secret-of-32-bytes-length!".getBytes());
    try (Receiver merchant = new Receiver(); Receiver pager = new Receiver()) {
      merchant.otherwise(Receiver.Response.status(503));
      server = TestServer.start(TestServer.tempDir(),
          "--herald.server.alerts.smtp-host=127.0.0.1", "--herald.server.alerts.smtp-port=" + smtp.getSmtp().getPort(),
          "--herald.server.alerts.from=herald@example.com", "--herald.server.alerts.window=4s",
          "--herald.server.alerts.webhook-secrets=" + secret,
          "--herald.http.circuit-failure-threshold=1000"); // every notice is tried, none deferred by the circuit
      TestServer.Api api = server.as(server.adminToken());
      TestServer.Resp def = api.post("/api/v1/definitions", "{\"name\":\"payments\",\"channel\":\"http\",\"target\":\""
          + merchant.url("/notify") + "\",\"maxAttempts\":1,\"alert\":\"final-failure\",\"options\":{"
          + "\"alert.email\":\"ops@example.com, oncall@example.com\",\"alert.webhook\":\"" + pager.url("/alerts")
          + "\",\"alert.recovered\":\"true\"}}");
      assertThat(def.status()).as(def.toString()).isEqualTo(201);
      for (int i = 0; i < 5; i++) {
        assertThat(api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"payments\",\"payload\":{\"n\":" + i
            + "}}]}").status()).isEqualTo(201);
      }

      // the first alert goes out at once, the other failures of the window are counted into one more
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(failureCount(smtp))
          .as(() -> subjects(smtp) + " " + api.get("/api/v1/notices?definition=payments").text()).isEqualTo(5));
      List<String> subjects = subjects(smtp);
      assertThat(subjects.getFirst()).isEqualTo("[Herald] payments: 1 failure");
      assertThat(subjects).as("grouped, not one per notice").hasSizeLessThan(5);
      MimeMessage first = smtp.getReceivedMessages()[0];
      assertThat(Arrays.stream(first.getAllRecipients()).map(Object::toString))
          .containsExactly("ops@example.com", "oncall@example.com");
      assertThat(com.icegreen.greenmail.util.GreenMailUtil.getBody(first)).contains("payments").contains("503");

      await().atMost(Duration.ofSeconds(10)).until(() -> pager.requests.stream()
          .mapToInt(r -> JSON(r.body()).path("count").asInt()).sum() == 5);
      Receiver.Request hook = pager.requests.getFirst();
      assertThat(hook.header("webhook-signature")).as("signed like every webhook").startsWith("v1,");
      assertThat(JSON(hook.body()).path("kind").asString()).isEqualTo("failure");
      assertThat(JSON(hook.body()).path("definition").asString()).isEqualTo("payments");

      // the receiver is back: one delivery, and people hear that it recovered
      merchant.otherwise(Receiver.Response.ok("ok"));
      api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"payments\",\"payload\":{\"n\":99}}]}");
      await().atMost(Duration.ofSeconds(15)).until(() -> subjects(smtp).contains("[Herald] payments recovered"));
      await().atMost(Duration.ofSeconds(10)).until(() -> pager.requests.stream()
          .anyMatch(r -> JSON(r.body()).path("kind").asString("").equals("recovered")));

      // alerts are notices themselves: stored and visible like any other
      JsonNode sent = api.get("/api/v1/notices?definition=herald-alert-mail&status=SUCCEEDED").json();
      assertThat(sent.get("items").size()).isGreaterThanOrEqualTo(3);
    }
  }

  private static JsonNode JSON(String text) {
    return TestServer.JSON.readTree(text);
  }

  /** Subjects of the alert mails, one per message (GreenMail keeps a copy per recipient). */
  private static List<String> subjects(GreenMail smtp) {
    List<String> out = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (MimeMessage m : smtp.getReceivedMessages()) {
      try {
        if (seen.add(m.getMessageID())) {
          out.add(m.getSubject());
        }
      } catch (jakarta.mail.MessagingException e) {
        throw new IllegalStateException(e);
      }
    }
    return out;
  }

  private static int failureCount(GreenMail smtp) {
    int n = 0;
    for (String s : subjects(smtp)) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile(": (\\d+) failures?$").matcher(s);
      if (m.find()) {
        n += Integer.parseInt(m.group(1));
      }
    }
    return n;
  }
}
