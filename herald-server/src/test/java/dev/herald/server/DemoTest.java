package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The done-when, end to end: the server started in demo mode shows the notices of a demo
 * run in the console (charts drawn in a real Chromium), a user resends a DEAD one there, and an
 * alert mail reaches a real SMTP server (GreenMail). Screenshots: demo-*.png under
 * target/console-screenshots.
 */
class DemoTest {
  static final String PASSWORD = "demo-lantern-quartz-9";
  /** {@code -Dtest.demo-shots-after=PT5M}: let the demo run this long before the screenshots. */
  static final Duration SHOTS_AFTER = Duration.parse(System.getProperty("test.demo-shots-after", "PT0S"));
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
    Instant started = Instant.now();
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

    if (SHOTS_AFTER.isPositive()) { // only to refresh the README's screenshots: charts need minutes of data
      Instant until = started.plus(SHOTS_AFTER);
      await().atMost(SHOTS_AFTER.plusMinutes(1)).pollInterval(Duration.ofSeconds(5))
          .until(() -> Instant.now().isAfter(until));
    }

    try (Chromium chromium = new Chromium()) {
      ChromeDriver browser = chromium.browser;
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
      browser.get(server.url("/console"));
      wait.until(ExpectedConditions.urlContains("/console/login"));
      browser.findElement(By.id("username")).sendKeys("admin");
      browser.findElement(By.id("password")).sendKeys(PASSWORD);
      browser.findElement(By.id("login")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("who")));

      browser.get(server.url("/console?range=hour"));
      wait.until(d -> "drawn".equals(d.findElement(By.tagName("body")).getDomAttribute("data-charts")));
      assertThat(Long.parseLong(browser.findElement(By.id("total-deliveries")).getText().strip())).isGreaterThan(5);
      assertThat(Long.parseLong(browser.findElement(By.id("total-failures")).getText().strip())).isPositive();
      Object drawn = browser.executeScript(
          "return Chart.getChart('chart-deliveries').data.datasets[0].data.reduce((a, b) => a + b, 0);");
      assertThat(((Number) drawn).longValue()).as("deliveries on the chart").isGreaterThan(5);
      chromium.shot("demo-overview");

      browser.get(server.url("/console/notices?status=DEAD&definition=demo-orders"));
      assertThat(browser.findElements(By.cssSelector("tr.notice-row"))).isNotEmpty();
      chromium.shot("demo-dead");
      WebElement row = browser.findElement(By.cssSelector("tr.notice-row"));
      String picked = row.getDomAttribute("data-id");
      row.findElement(By.tagName("a")).click();
      wait.until(ExpectedConditions.textToBe(By.id("status"), "DEAD"));
      browser.findElement(By.id("resend")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("message")));
      await().atMost(Duration.ofSeconds(15))
          .until(() -> api.get("/api/v1/notices/" + picked).json().get("status").asString().equals("SUCCEEDED"));
      browser.navigate().refresh();
      assertThat(browser.findElement(By.id("status")).getText()).isEqualTo("SUCCEEDED");
      assertThat(browser.findElements(By.cssSelector("tr.attempt-row"))).as("3 failed, then the resend's").hasSize(4);
      chromium.shot("demo-notice");
    }

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

  private static String subject(MimeMessage m) {
    try {
      return m.getSubject();
    } catch (jakarta.mail.MessagingException e) {
      throw new IllegalStateException(e);
    }
  }
}
