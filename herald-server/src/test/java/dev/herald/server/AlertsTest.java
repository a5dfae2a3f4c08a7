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
      String endpoint = "http://127.0.0.1:" + merchant.url("/").replaceAll(".*:(\\d+)/.*", "$1");
      assertThat(subjects.getFirst()).isEqualTo("[Herald] payments: notice DEAD after 1 failed attempt(s) at "
          + endpoint);
      assertThat(subjects).as("grouped, not one per notice").hasSizeLessThan(5);
      assertThat(subjects.subList(1, subjects.size())).as("the follow-ups say so")
          .allSatisfy(x -> assertThat(x).startsWith("[Herald] STILL FAILING payments at " + endpoint + ": "));
      MimeMessage first = smtp.getReceivedMessages()[0];
      assertThat(Arrays.stream(first.getAllRecipients()).map(Object::toString))
          .containsExactly("ops@example.com", "oncall@example.com");
      jakarta.mail.internet.MimeMultipart parts = (jakarta.mail.internet.MimeMultipart) first.getContent();
      assertThat(parts.getContentType()).startsWith("multipart/alternative");
      String text = parts.getBodyPart(0).getContent().toString();
      String html = parts.getBodyPart(1).getContent().toString();
      assertThat(text).contains("A notice of definition payments failed for good (DEAD) after 1 failed attempt(s).")
          .contains("Last error: ").contains("503").contains("Payload: {\"n\":").contains("Endpoint: " + endpoint)
          .containsPattern("Open the notice: /console/notices/[0-9a-f-]{36}")
          .contains("Sent by Herald on server ");
      assertThat(html).contains("<a href=\"/console/notices/").contains("<pre>{&quot;n&quot;:");

      await().atMost(Duration.ofSeconds(10)).until(() -> pager.requests.stream()
          .mapToInt(r -> JSON(r.body()).path("count").asInt()).sum() == 5);
      Receiver.Request hook = pager.requests.getFirst();
      assertThat(hook.header("webhook-signature")).as("signed like every webhook").startsWith("v1,");
      JsonNode alert = JSON(hook.body());
      assertThat(alert.path("kind").asString()).isEqualTo("failure");
      assertThat(alert.path("sequence").asString()).isEqualTo("first");
      assertThat(alert.path("definition").asString()).isEqualTo("payments");
      assertThat(alert.path("server").asString()).isNotBlank();
      assertThat(alert.path("notice").path("payloadExcerpt").asString()).startsWith("{\"n\":");
      assertThat(alert.path("notice").path("attempts").asInt()).isEqualTo(1);
      assertThat(alert.path("links").path("notice").asString()).isEqualTo("/console/notices/" + alert.path("noticeId").asString());
      assertThat(pager.requests.stream().map(r -> JSON(r.body()).path("sequence").asString(""))).contains("follow-up");

      // the receiver is back: one delivery, and people hear that it recovered
      merchant.otherwise(Receiver.Response.ok("ok"));
      api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"payments\",\"payload\":{\"n\":99}}]}");
      await().atMost(Duration.ofSeconds(15)).until(() -> subjects(smtp).stream()
          .anyMatch(x -> x.startsWith("[Herald] RECOVERED payments: delivers again at http://127.0.0.1:")));
      await().atMost(Duration.ofSeconds(10)).until(() -> pager.requests.stream()
          .anyMatch(r -> JSON(r.body()).path("kind").asString("").equals("recovered")));

      // alerts are notices themselves: stored and visible like any other
      JsonNode sent = api.get("/api/v1/notices?definition=herald-alert-mail&status=SUCCEEDED").json();
      assertThat(sent.get("items").size()).isGreaterThanOrEqualTo(3);
    }
  }

  /** An alert the mail server refuses: the server's reply is in the log, not only in the attempt log. */
  @Test
  void anAlertTheMailServerRefusesIsLoggedWithItsReply() throws Exception {
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
        new ch.qos.logback.core.read.ListAppender<>();
    ch.qos.logback.classic.Logger alerts = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        dev.herald.server.alerts.AlertService.class);
    try (RefusingSmtp refusing = new RefusingSmtp("550 5.1.1 Invalid Addresses"); Receiver merchant = new Receiver()) {
      merchant.otherwise(Receiver.Response.status(500));
      server = TestServer.start(TestServer.tempDir(), "--herald.server.alerts.smtp-host=127.0.0.1",
          "--herald.server.alerts.smtp-port=" + refusing.port());
      log.start();
      alerts.addAppender(log);
      TestServer.Api api = server.as(server.adminToken());
      assertThat(api.post("/api/v1/definitions", "{\"name\":\"refunds\",\"channel\":\"http\",\"target\":\""
          + merchant.url("/refund") + "\",\"maxAttempts\":1,\"options\":{\"alert.email\":\"nobody@example.com\"}}")
          .status()).isEqualTo(201);
      api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"refunds\",\"payload\":{\"r\":1}}]}");
      await().atMost(Duration.ofSeconds(20)).until(() -> log.list.stream()
          .anyMatch(e -> e.getFormattedMessage().contains("given up (DEAD)")));
      assertThat(log.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
          .contains("Herald alert ").contains("(herald-alert-mail) to nobody@example.com not delivered at attempt 1")
          .contains("550").contains("Invalid Addresses"));
    } finally {
      alerts.detachAppender(log);
    }
  }

  /** A real SMTP conversation that refuses every recipient with the reply given. */
  static final class RefusingSmtp implements AutoCloseable {
    private final java.net.ServerSocket socket = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());

    RefusingSmtp(String rcptReply) throws java.io.IOException {
      Thread.ofVirtual().start(() -> {
        while (!socket.isClosed()) {
          try (java.net.Socket s = socket.accept(); var in = new java.io.BufferedReader(new java.io.InputStreamReader(
              s.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII)); var out = s.getOutputStream()) {
            out.write("220 refusing ESMTP\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
              String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase(java.util.Locale.ROOT) : line;
              String reply = switch (verb) {
                case "EHLO", "HELO" -> "250 refusing";
                case "RCPT" -> rcptReply;
                case "QUIT" -> "221 bye";
                default -> "250 OK";
              };
              out.write((reply + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
              if (verb.equals("QUIT")) {
                break;
              }
            }
          } catch (java.io.IOException e) {
            return; // closed
          }
        }
      });
    }

    int port() {
      return socket.getLocalPort();
    }

    @Override
    public void close() throws java.io.IOException {
      socket.close();
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

  /** Failures the alerts told of: one for each first alert, the count of each follow-up. */
  private static int failureCount(GreenMail smtp) {
    int n = 0;
    for (String s : subjects(smtp)) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile(": (\\d+) more failure\\(s\\) since").matcher(s);
      if (m.find()) {
        n += Integer.parseInt(m.group(1));
      } else if (s.startsWith("[Herald] payments: notice ")) {
        n++;
      }
    }
    return n;
  }
}
