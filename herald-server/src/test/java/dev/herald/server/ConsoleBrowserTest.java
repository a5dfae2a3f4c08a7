package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.server.console.ConsoleUsers;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real headless Chromium (Debian's chromium and chromium-driver, installed by
 * scripts/install-test-packages.sh), against a real server with real deliveries to loopback
 * receivers. One browser for the class; a screenshot of each page under target/console-screenshots.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  static final String ADMIN_PASSWORD = "lantern-quartz-meadow-7";
  static final String OPERATOR_PASSWORD = "operator-password-1";
  static final String VIEWER_PASSWORD = "viewer-password-12";

  TestServer server;
  TestServer.Api api;
  Receiver orders;
  Receiver payouts;
  Chromium chromium;
  ChromeDriver browser;
  WebDriverWait wait;
  String ordersDef;
  String payoutsDef;
  final List<String> orderIds = new ArrayList<>();
  final List<String> payoutIds = new ArrayList<>();
  String laterId;

  @BeforeAll
  void start() throws IOException {
    server = TestServer.start(TestServer.tempDir(), "--herald.server.console.admin-password=" + ADMIN_PASSWORD,
        "--herald.http.disabled-recheck=500ms"); // an enabled endpoint's waiting notices go at once
    api = server.as(server.adminToken());
    ConsoleUsers users = server.context.getBean(ConsoleUsers.class);
    users.create("olivia", OPERATOR_PASSWORD, dev.herald.server.console.ConsoleRole.OPERATOR, "test");
    users.create("victor", VIEWER_PASSWORD, dev.herald.server.console.ConsoleRole.VIEWER, "test");

    orders = new Receiver().otherwise(Receiver.Response.ok("ok"));
    payouts = new Receiver().otherwise(Receiver.Response.status(500));
    ordersDef = define("orders", orders.url("/orders"), 5);
    payoutsDef = define("payouts", payouts.url("/payouts"), 1);
    for (int i = 1; i <= 3; i++) {
      orderIds.add(create("{\"definition\":\"" + ordersDef + "\",\"payload\":{\"order\":100" + i + "},"
          + "\"description\":\"order 100" + i + " paid\",\"idempotencyKey\":\"order-100" + i + "\"}"));
      payoutIds.add(create("{\"definition\":\"" + payoutsDef + "\",\"payload\":{\"payout\":" + i + "},"
          + "\"description\":\"payout " + i + "\"}"));
    }
    laterId = create("{\"definition\":\"" + ordersDef + "\",\"payload\":{\"order\":2000},\"delay\":\"1h\","
        + "\"description\":\"order 2000 ships tomorrow\"}");
    await().atMost(Duration.ofSeconds(15)).until(() -> orderIds.stream().allMatch(id -> status(id).equals("SUCCEEDED"))
        && payoutIds.stream().allMatch(id -> status(id).equals("DEAD")));

    chromium = new Chromium();
    browser = chromium.browser;
    wait = new WebDriverWait(browser, Duration.ofSeconds(10));
  }

  @AfterAll
  void stop() throws Exception {
    if (chromium != null) {
      chromium.close();
    }
    if (server != null) {
      server.close();
    }
    orders.close();
    payouts.close();
  }

  @Test
  @Order(1)
  void wrongPasswordIsRefusedAndTheRightOneLetsIn() {
    browser.get(server.url("/console"));
    wait.until(ExpectedConditions.urlContains("/console/login"));
    shot("login");
    submitLogin("admin", "not-the-password");
    assertThat(text("error")).contains("Wrong user name or password");
    assertThat(browser.getCurrentUrl()).contains("/console/login");
    submitLogin("admin", ADMIN_PASSWORD);
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("who")));
    assertThat(text("who")).isEqualTo("admin");
  }

  @Test
  @Order(2)
  void overviewChartsAreDrawnFromRealDeliveries() {
    loginAs("admin", ADMIN_PASSWORD);
    browser.get(server.url("/console?range=hour"));
    wait.until(d -> "drawn".equals(d.findElement(By.tagName("body")).getDomAttribute("data-charts")));
    assertThat(text("total-deliveries")).isEqualTo("3");
    assertThat(text("total-failures")).isEqualTo("3");
    assertThat(text("backlog-now")).as("the notice due in an hour is not due yet").isEqualTo("0");
    JavascriptExecutor js = browser;
    Object delivered = js.executeScript(
        "return Chart.getChart('chart-deliveries').data.datasets[0].data.reduce((a, b) => a + b, 0);");
    Object failed = js.executeScript(
        "return Chart.getChart('chart-deliveries').data.datasets[1].data.reduce((a, b) => a + b, 0);");
    assertThat(((Number) delivered).longValue()).isEqualTo(3);
    assertThat(((Number) failed).longValue()).isEqualTo(3);
    Object painted = js.executeScript("const c = document.getElementById('chart-deliveries');"
        + "const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        + "let n = 0; for (let i = 3; i < px.length; i += 4) { if (px[i] > 0) n++; } return n;");
    assertThat(((Number) painted).longValue()).as("pixels drawn on the canvas").isGreaterThan(500);
    shot("overview");
    browser.get(server.url("/console?range=day&definition=" + payoutsDef));
    wait.until(d -> "drawn".equals(d.findElement(By.tagName("body")).getDomAttribute("data-charts")));
    assertThat(text("total-deliveries")).isEqualTo("0");
    assertThat(text("total-failures")).isEqualTo("3");
  }

  @Test
  @Order(3)
  void searchFindsByDescriptionAndKeyAndDetailShowsPayloadAndAttempts() {
    loginAs("admin", ADMIN_PASSWORD);
    browser.get(server.url("/console/notices"));
    assertThat(browser.findElements(By.cssSelector("tr.notice-row"))).hasSize(7);
    browser.findElement(By.id("f-text")).sendKeys("ORDER 1002");
    browser.findElement(By.id("do-search")).click();
    wait.until(d -> d.findElements(By.cssSelector("tr.notice-row")).size() == 1);
    assertThat(browser.findElement(By.cssSelector("tr.notice-row")).getDomAttribute("data-id")).isEqualTo(orderIds.get(1));
    shot("notices");
    browser.get(server.url("/console/notices?key=order-1003"));
    assertThat(browser.findElements(By.cssSelector("tr.notice-row"))).hasSize(1);
    browser.get(server.url("/console/notices?status=DEAD&definition=" + payoutsDef));
    assertThat(browser.findElements(By.cssSelector("tr.notice-row"))).hasSize(3);
    browser.get(server.url("/console/notices?id=" + orderIds.get(0)));
    browser.findElement(By.cssSelector("tr.notice-row a")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("payload")));
    assertThat(text("payload")).contains("\"order\":1001");
    assertThat(text("status")).isEqualTo("SUCCEEDED");
    assertThat(browser.findElements(By.cssSelector("tr.attempt-row"))).hasSize(1);
    assertThat(browser.findElement(By.cssSelector("tr.attempt-row")).getText()).contains("DELIVERED");
    shot("notice");
  }

  @Test
  @Order(4)
  void operatorResendsAndCancels() {
    loginAs("olivia", OPERATOR_PASSWORD);
    browser.get(server.url("/console/notices/" + orderIds.get(2)));
    browser.findElement(By.id("resend")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("message")));
    await().atMost(Duration.ofSeconds(10)).until(() -> orders.requests.size() == 4);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(orderIds.get(2)).equals("SUCCEEDED"));
    browser.navigate().refresh();
    assertThat(browser.findElements(By.cssSelector("tr.attempt-row"))).as("the resend's attempt is logged").hasSize(2);

    browser.get(server.url("/console/notices/" + laterId));
    assertThat(text("status")).isEqualTo("PENDING");
    browser.findElement(By.id("cancel")).click();
    wait.until(ExpectedConditions.textToBe(By.id("status"), "CANCELLED"));
    assertThat(status(laterId)).isEqualTo("CANCELLED");
  }

  @Test
  @Order(5)
  void bulkRecoverSaysHowManyThenRecoversThem() {
    loginAs("olivia", OPERATOR_PASSWORD);
    payouts.otherwise(Receiver.Response.ok("ok")); // the receiver is back
    browser.get(server.url("/console/notices?definition=" + payoutsDef));
    browser.findElement(By.id("bulk-recover")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("count")));
    assertThat(text("count")).isEqualTo("3");
    assertThat(payoutIds).allMatch(id -> status(id).equals("DEAD"));
    shot("bulk");
    browser.findElement(By.id("confirm-bulk")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("message")));
    assertThat(text("message")).contains("recover: 3 of 3");
    await().atMost(Duration.ofSeconds(10)).until(() -> payoutIds.stream().allMatch(id -> status(id).equals("SUCCEEDED")));
  }

  @Test
  @Order(6)
  void viewerSeesNoControlsAndTheServerRefusesTheirChanges() {
    loginAs("victor", VIEWER_PASSWORD);
    browser.get(server.url("/console/notices"));
    assertThat(browser.findElements(By.cssSelector("tr.notice-row"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector(".bulk"))).isEmpty();
    browser.get(server.url("/console/notices/" + orderIds.get(0)));
    assertThat(browser.findElements(By.cssSelector(".actions button"))).isEmpty();
    assertThat(browser.findElements(By.id("nav-users"))).isEmpty();
    browser.get(server.url("/console/definitions/" + ordersDef));
    assertThat(browser.findElements(By.id("edit-definition"))).isEmpty();

    // A request the page never offered, with a valid CSRF token: the server refuses it all the same.
    Object answer = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
        + "const csrf = document.querySelector('input[name=_csrf]').value;"
        + "fetch('/console/notices/" + laterId + "/resend', {method: 'POST', redirect: 'manual',"
        + " headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: '_csrf=' + encodeURIComponent(csrf)})"
        + ".then(r => done(r.status));");
    assertThat(((Number) answer).intValue()).isEqualTo(403);
    assertThat(status(laterId)).as("unchanged").isEqualTo("CANCELLED");

    // Endpoints: the viewer sees them, but no button; a hand-made disable is refused and changes nothing.
    browser.get(server.url("/console/endpoints"));
    assertThat(browser.findElements(By.cssSelector("tr.endpoint-row"))).hasSize(2);
    assertThat(browser.findElements(By.cssSelector("#http-endpoints button, #http-endpoints input"))).isEmpty();
    Object disable = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
        + "const csrf = document.querySelector('input[name=_csrf]').value;"
        + "fetch('/console/endpoints/disable', {method: 'POST', redirect: 'manual',"
        + " headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
        + " body: 'url=" + ordersEndpoint() + "&_csrf=' + encodeURIComponent(csrf)}).then(r => done(r.status));");
    assertThat(((Number) disable).intValue()).isEqualTo(403);
    assertThat(endpointJson(ordersEndpoint()).get("disabled").asBoolean()).as("unchanged").isFalse();
    browser.get(server.url("/console/admin/users"));
    assertThat(text("denied")).contains("does not allow");
  }

  @Test
  @Order(7)
  void formsWithoutTheCsrfTokenAreRefused() {
    loginAs("olivia", OPERATOR_PASSWORD);
    browser.get(server.url("/console/notices"));
    Object answer = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
        + "fetch('/console/notices/" + orderIds.get(0) + "/resend', {method: 'POST', redirect: 'manual'})"
        + ".then(r => done(r.status));");
    assertThat(((Number) answer).intValue()).isEqualTo(403);
  }

  @Test
  @Order(8)
  void adminDisablesAnEndpointItsNoticesWaitUntilEnabledAndSetsItsRate() {
    String endpoint = ordersEndpoint();
    loginAs("olivia", OPERATOR_PASSWORD);
    browser.get(server.url("/console/endpoints"));
    assertThat(browser.findElements(By.cssSelector("#http-endpoints button"))).as("admins only, as in the API").isEmpty();

    loginAs("admin", ADMIN_PASSWORD);
    browser.get(server.url("/console/endpoints"));
    endpointRow(endpoint).findElement(By.className("disable-reason")).sendKeys("deploy");
    submitAndAwait(endpointRow(endpoint).findElement(By.className("disable-endpoint")), "message");
    assertThat(text("message")).contains(endpoint).contains("disabled");
    assertThat(endpointRow(endpoint).findElement(By.className("disabled-flag")).getText()).contains("disabled")
        .contains("deploy");
    assertThat(endpointJson(endpoint).get("disabled").asBoolean()).isTrue();
    int before = orders.requests.size();
    String waiting = create("{\"definition\":\"" + ordersDef + "\",\"payload\":{\"order\":3000}}");
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> orders.requests.size() == before);

    WebElement rate = endpointRow(endpoint).findElement(By.className("max-rate"));
    rate.clear();
    rate.sendKeys("5/s");
    submitAndAwait(endpointRow(endpoint).findElement(By.className("set-rate")), "message");
    assertThat(endpointJson(endpoint).get("ownMaxRate").asString()).isEqualTo("5/s");
    assertThat(endpointRow(endpoint).findElement(By.className("rate")).getText()).isEqualTo("5/s");
    shot("endpoints");

    submitAndAwait(endpointRow(endpoint).findElement(By.className("enable-endpoint")), "message");
    assertThat(endpointJson(endpoint).get("disabled").asBoolean()).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> status(waiting).equals("SUCCEEDED"));

    WebElement bad = endpointRow(endpoint).findElement(By.className("max-rate"));
    bad.clear();
    bad.sendKeys("fast");
    submitAndAwait(endpointRow(endpoint).findElement(By.className("set-rate")), "error");
    assertThat(text("error")).startsWith("maxRate:");
    assertThat(endpointJson(endpoint).get("ownMaxRate").asString()).as("unchanged").isEqualTo("5/s");
  }

  /**
   * Submits a form and waits for the next page's element {@code id}: the page before may show one
   * already (the last action's message), so the wait starts once that page is gone.
   */
  private void submitAndAwait(WebElement button, String id) {
    List<WebElement> before = browser.findElements(By.id(id));
    button.click();
    if (!before.isEmpty()) {
      wait.until(ExpectedConditions.stalenessOf(before.getFirst()));
    }
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id(id)));
  }

  @Test
  @Order(9)
  void adminPagesAndLogout() {
    loginAs("admin", ADMIN_PASSWORD);
    browser.get(server.url("/console/definitions"));
    shot("definitions");
    browser.get(server.url("/console/definitions/" + ordersDef));
    browser.findElement(By.id("max-attempts")).clear();
    browser.findElement(By.id("max-attempts")).sendKeys("7");
    browser.findElement(By.id("save-definition")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("message")));
    assertThat(api.get("/api/v1/definitions/" + ordersDef).json().get("maxAttempts").asInt()).isEqualTo(7);
    shot("definition");
    browser.get(server.url("/console/admin/tokens"));
    browser.findElement(By.id("token-name")).sendKeys("ci");
    browser.findElement(By.id("create-token")).click();
    String token = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("new-token"))).getText();
    assertThat(server.as(token).get("/api/v1/notices/" + orderIds.get(0)).status()).isEqualTo(200);
    shot("tokens");
    browser.get(server.url("/console/admin/users"));
    shot("users");
    browser.findElement(By.id("logout")).click();
    wait.until(ExpectedConditions.urlContains("/console/login?logout"));
    browser.get(server.url("/console/notices"));
    wait.until(ExpectedConditions.urlContains("/console/login"));
  }

  @Test
  @Order(10)
  void nothingOfTheConsoleStaysInTheBrowsersStorage() {
    loginAs("admin", ADMIN_PASSWORD);
    browser.get(server.url("/console/notices"));
    browser.findElement(By.id("f-text")).sendKeys("payout");
    browser.findElement(By.id("do-search")).click(); // htmx: the page is swapped and its URL pushed
    wait.until(ExpectedConditions.urlContains("text=payout"));
    wait.until(d -> d.findElements(By.cssSelector("tr.notice-row")).size() == 3);
    JavascriptExecutor js = browser;
    assertThat(js.executeScript("return localStorage.getItem('htmx-history-cache');"))
        .as("htmx keeps no copy of pages (descriptions, errors) in localStorage").isNull();
    browser.findElement(By.id("logout")).click();
    wait.until(ExpectedConditions.urlContains("/console/login?logout"));
    assertThat(((Number) js.executeScript("return localStorage.length + sessionStorage.length;")).intValue())
        .as("after logout").isZero();
    browser.navigate().back();
    wait.until(ExpectedConditions.urlContains("/console/login"));
    assertThat(browser.getPageSource()).as("going back shows no page of the session").doesNotContain("payout 1");
  }

  // ------------------------------------------------------------------ helpers

  private void loginAs(String user, String password) {
    browser.manage().deleteAllCookies();
    browser.get(server.url("/console/login"));
    submitLogin(user, password);
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("who")));
  }

  private void submitLogin(String user, String password) {
    WebElement name = browser.findElement(By.id("username"));
    name.clear();
    name.sendKeys(user);
    browser.findElement(By.id("password")).sendKeys(password);
    browser.findElement(By.id("login")).click();
    wait.until(ExpectedConditions.or(ExpectedConditions.presenceOfElementLocated(By.id("who")),
        ExpectedConditions.presenceOfElementLocated(By.id("error"))));
  }

  private String text(String id) {
    return browser.findElement(By.id(id)).getText().strip();
  }

  private void shot(String page) {
    chromium.shot(page);
  }

  private String define(String prefix, String target, int maxAttempts) {
    String name = prefix + "-" + java.util.UUID.randomUUID().toString().substring(0, 6);
    TestServer.Resp r = api.post("/api/v1/definitions", "{\"name\":\"" + name + "\",\"channel\":\"http\",\"target\":\""
        + target + "\",\"retry\":\"1s\",\"maxAttempts\":" + maxAttempts + "}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return name;
  }

  private String create(String item) {
    TestServer.Resp r = api.post("/api/v1/notices", "{\"notices\":[" + item + "]}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("ids").get(0).asString();
  }

  private String ordersEndpoint() {
    return dev.herald.channel.http.HttpChannel.endpointOf(orders.url("/orders"));
  }

  private WebElement endpointRow(String endpoint) {
    return browser.findElement(By.cssSelector("tr.endpoint-row[data-endpoint='" + endpoint + "']"));
  }

  private tools.jackson.databind.JsonNode endpointJson(String endpoint) {
    for (tools.jackson.databind.JsonNode e : api.get("/api/v1/endpoints").json().get("items")) {
      if (e.get("endpoint").asString().equals(endpoint)) {
        return e;
      }
    }
    throw new AssertionError("no endpoint " + endpoint);
  }

  private String status(String id) {
    return api.get("/api/v1/notices/" + id).json().get("status").asString();
  }
}
