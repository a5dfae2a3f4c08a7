package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import jakarta.mail.internet.MimeMessage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The done-when, end to end: the server started in demo mode shows the notices of a demo
 * run in the console, a user resends a DEAD one there, and an alert mail reaches a real SMTP server.
 */
class DemoTest {
  static final String PASSWORD = "demo-admin-password";
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
  void aDemoRunFillsTheConsoleAResendOfADeadOneSucceedsAndAnAlertMailArrives() throws Exception {
    smtp.start();
    server = TestServer.start(TestServer.tempDir(), "--herald.server.demo=true",
        "--herald.http.allow=", // the demo itself lets webhooks reach its receiver on 127.0.0.1
        "--herald.server.console.admin-password=" + PASSWORD,
        "--herald.server.alerts.smtp-host=127.0.0.1", "--herald.server.alerts.smtp-port=" + smtp.getSmtp().getPort());
    TestServer.Api api = server.as(server.adminToken());
    assertThat(api.get("/api/v1/definitions/demo-orders").json().path("options").path("alert.email").asString())
        .isEqualTo("ops@example.com");

    await().atMost(Duration.ofSeconds(40)).until(() -> count(api, "demo-orders", "DEAD") > 0
        && count(api, "demo-orders", "SUCCEEDED") > 5 && count(api, "demo-reports", "AWAITING_CONFIRM") > 0);
    JsonNode dead = api.get("/api/v1/notices?definition=demo-orders&status=DEAD").json().get("items").get(0);
    String id = dead.get("id").asString();
    assertThat(dead.get("attempts").asInt()).isEqualTo(3);
    assertThat(api.get("/api/v1/notices/" + id).json().get("lastError").asString()).contains("500");

    ConsoleSession admin = new ConsoleSession(server);
    assertThat(admin.login("admin", PASSWORD)).endsWith("/console");
    String overview = admin.get("/console?range=hour").body();
    assertThat(number(overview, "total-deliveries")).isGreaterThan(5);
    assertThat(number(overview, "total-failures")).isGreaterThan(0);
    assertThat(admin.get("/console/notices?status=DEAD&definition=demo-orders").body()).contains(id);

    String page = admin.get("/console/notices/" + id).body();
    assertThat(page).contains("id=\"resend\"");
    HttpResponse<String> resend = admin.post("/console/notices/" + id + "/resend", "_csrf=" + ConsoleSession.csrf(page));
    assertThat(resend.statusCode()).isEqualTo(302);
    await().atMost(Duration.ofSeconds(15))
        .until(() -> api.get("/api/v1/notices/" + id).json().get("status").asString().equals("SUCCEEDED"));

    await().atMost(Duration.ofSeconds(20)).until(() -> Arrays.stream(smtp.getReceivedMessages())
        .anyMatch(m -> subject(m).startsWith("[Herald] demo-orders")));
    MimeMessage mail = Arrays.stream(smtp.getReceivedMessages())
        .filter(m -> subject(m).startsWith("[Herald] demo-orders")).findFirst().orElseThrow();
    assertThat(GreenMailUtil.getAddressList(mail.getAllRecipients())).contains("ops@example.com");
    assertThat(GreenMailUtil.getBody(mail)).contains("demo-orders");
  }

  @Test
  void offByDefault() {
    TestServer shared = TestServer.shared();
    TestServer.Api api = shared.as(shared.adminToken());
    assertThat(api.get("/api/v1/definitions/demo-orders").status()).isEqualTo(404);
    assertThat(shared.as(null).post("/demo/receiver/orders", "{\"order\":1}").status()).isEqualTo(404);
  }

  private static int count(TestServer.Api api, String definition, String status) {
    return api.get("/api/v1/notices?definition=" + definition + "&status=" + status + "&limit=100").json()
        .get("items").size();
  }

  private static long number(String page, String id) {
    Matcher m = Pattern.compile("id=\"" + id + "\"[^>]*>\\s*([0-9]+)").matcher(page);
    assertThat(m.find()).as("%s on the page", id).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String subject(MimeMessage m) {
    try {
      return m.getSubject();
    } catch (jakarta.mail.MessagingException e) {
      throw new IllegalStateException(e);
    }
  }
}
