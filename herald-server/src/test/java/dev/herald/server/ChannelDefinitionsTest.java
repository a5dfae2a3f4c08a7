package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Definitions of channel mail and amqp through the API: accepted, validated, and (mail) delivered. */
class ChannelDefinitionsTest {
  static GreenMail smtp;
  static TestServer server;
  static TestServer.Api admin;

  @BeforeAll
  static void start() {
    smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    smtp.start();
    server = TestServer.start(TestServer.tempDir(),
        "--herald.mail.host=127.0.0.1",
        "--herald.mail.port=" + smtp.getSmtp().getPort(),
        "--herald.mail.from=Herald <noreply@herald.test>",
        "--herald.amqp.brokers.main=amqp://guest:guest@127.0.0.1:1");
    admin = server.as(server.adminToken());
  }

  @AfterAll
  static void stop() {
    server.close();
    smtp.stop();
  }

  static void assertInvalid(TestServer.Resp r, String field, String reasonPart) {
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
    assertThat(r.field()).as(r.toString()).isEqualTo(field);
    assertThat(r.json().get("reason").asString()).contains(reasonPart);
  }

  @Test
  void aMailDefinitionCreatedThroughTheApiSendsItsNotices() throws Exception {
    TestServer.Resp d = admin.post("/api/v1/definitions", """
        {"name": "order-shipped", "channel": "mail", "target": "buyer@shop.example",
         "options": {"subject": "Order {{order.id}} shipped", "html": "<p>Order <b>{{order.id}}</b></p>"}}""");
    assertThat(d.status()).as(d.toString()).isEqualTo(201);
    TestServer.Resp n = admin.post("/api/v1/notices",
        "{\"notices\": [{\"definition\": \"order-shipped\", \"payload\": {\"order\": {\"id\": 42}}}]}");
    assertThat(n.status()).as(n.toString()).isEqualTo(201);

    await().atMost(Duration.ofSeconds(10)).until(() -> smtp.getReceivedMessages().length == 1);
    assertThat(smtp.getReceivedMessages()[0].getSubject()).isEqualTo("Order 42 shipped");
  }

  @Test
  void channelOptionsAreCheckedAndNamedByField() {
    String defs = "/api/v1/definitions";
    assertInvalid(admin.post(defs, """
        {"name": "m1", "channel": "mail", "target": "buyer@shop.example", "options": {"text": "hi"}}"""),
        "options.subject", "is required");
    assertInvalid(admin.post(defs, """
        {"name": "m2", "channel": "mail", "target": "not an address", "options": {"subject": "s", "text": "t"}}"""),
        "target", "not a list of e-mail addresses");
    assertInvalid(admin.post(defs, """
        {"name": "a1", "channel": "amqp", "target": "bad exchange/key"}"""), "target", "exchange 'bad exchange'");
    assertInvalid(admin.post(defs, """
        {"name": "a2", "channel": "amqp", "target": "orders/order.paid", "options": {"broker": "other"}}"""),
        "options.broker", "not one of the AMQP channel's brokers [main]");
    assertInvalid(admin.post(defs, """
        {"name": "k1", "channel": "kafka", "target": "orders"}"""), "channel",
        "set herald.kafka.bootstrap-servers");
    TestServer.Resp ok = admin.post(defs, """
        {"name": "order-paid", "channel": "amqp", "target": "orders/order.paid", "options": {"confirm-timeout": "5s"}}""");
    assertThat(ok.status()).as(ok.toString()).isEqualTo(201);
  }

  @Test
  void aDefinitionWithoutTargetTakesEachNoticesOwnUrlAndOnlyThroughHttp() {
    String defs = "/api/v1/definitions";
    assertInvalid(admin.post(defs, """
        {"name": "m3", "channel": "mail", "options": {"subject": "s", "text": "t"}}"""),
        "target", "is required: channel 'mail' delivers to its definition's target");
    assertInvalid(admin.post(defs, """
        {"name": "a3", "channel": "amqp"}"""), "target", "is required: channel 'amqp'");
    TestServer.Resp made = admin.post(defs, "{\"name\": \"own-url\", \"channel\": \"http\"}");
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    assertThat(admin.get(defs + "/own-url").json().get("target").isNull()).isTrue();
    assertThat(admin.get(defs + "/callback").json().get("target").isNull()).as("the built-in one too").isTrue();
    assertInvalid(admin.post("/api/v1/notices", "{\"notices\": [{\"definition\": \"own-url\", \"payload\": 1}]}"),
        "notices[0].callbackUrl", "is required: definition 'own-url' has no URL of its own");

    dev.herald.server.console.ConsoleUsers users = server.context.getBean(dev.herald.server.console.ConsoleUsers.class);
    users.create("per-notice-viewer", ConsoleAccessTest.PASSWORD, dev.herald.server.console.ConsoleRole.VIEWER, "test");
    ConsoleSession s = new ConsoleSession(server);
    s.login("per-notice-viewer", ConsoleAccessTest.PASSWORD);
    String page = s.get("/console/definitions/own-url").body();
    assertThat(page).contains("each notice gives its own URL").doesNotContain(".invalid");
    assertThat(s.get("/console/definitions").body()).contains("each notice gives its own URL");
  }
}
