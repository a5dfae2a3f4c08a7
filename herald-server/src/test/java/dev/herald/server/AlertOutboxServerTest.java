package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Alerts from the core's outbox, as the server sends them: grouped per definition and endpoint, an
 * alert left in the outbox by a process that ended sent by the next, and "recovered" told after a
 * restart (the failing mark is a row, not memory).
 */
class AlertOutboxServerTest {
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static TestServer start(Path dir, String window) {
    return TestServer.start(dir, "--herald.server.alerts.window=" + window);
  }

  private static void define(TestServer.Api api, String name, Receiver pager, String policy) {
    TestServer.Resp def = api.post("/api/v1/definitions", "{\"name\":\"" + name + "\",\"channel\":\"http\","
        + "\"maxAttempts\":1,\"alert\":\"" + policy + "\",\"options\":{\"alert.webhook\":\"" + pager.url("/alerts")
        + "\",\"alert.recovered\":\"true\"}}");
    assertThat(def.status()).as(def.toString()).isEqualTo(201);
  }

  private static void notices(TestServer.Api api, String definition, String url, int n) {
    String one = "{\"definition\":\"" + definition + "\",\"callbackUrl\":\"" + url + "\",\"payload\":1}";
    TestServer.Resp r = api.post("/api/v1/notices", "{\"notices\":[" + String.join(",", java.util.Collections.nCopies(n,
        one)) + "]}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
  }

  private static List<JsonNode> alerts(Receiver pager, String kind) {
    return pager.requests.stream().map(r -> TestServer.JSON.readTree(r.body()))
        .filter(a -> a.path("kind").asString("").equals(kind)).toList();
  }

  @Test
  void oneAlertPerEndpointAndWindowThenOneWithTheCount() throws Exception {
    try (Receiver a = new Receiver(); Receiver b = new Receiver(); Receiver pager = new Receiver()) {
      // refusals that do not count against the endpoints' circuits: every notice is tried at once
      a.otherwise(Receiver.Response.status(400));
      b.otherwise(Receiver.Response.status(404));
      server = start(TestServer.tempDir(), "6s");
      TestServer.Api api = server.as(server.adminToken());
      define(api, "orders", pager, "final-failure");
      notices(api, "orders", a.url("/hook"), 50);
      notices(api, "orders", b.url("/hook"), 1);
      String endpointA = a.url("").replace("/", "").replace("http:", "http://");
      String endpointB = b.url("").replace("/", "").replace("http:", "http://");

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(alerts(pager, "failure").stream()
          .filter(x -> x.path("endpoint").asString("").equals(endpointA)).mapToInt(x -> x.path("count").asInt()).sum())
          .as(() -> alerts(pager, "failure").toString()).isEqualTo(50));
      await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        var byEndpoint = alerts(pager, "failure").stream().collect(Collectors.groupingBy(
            x -> x.path("endpoint").asString(""), Collectors.mapping(x -> x.path("count").asInt(), Collectors.toList())));
        assertThat(byEndpoint).as("two endpoints, two alerts; then the rest of the window counted")
            .containsOnlyKeys(endpointA, endpointB);
        assertThat(byEndpoint.get(endpointA)).containsExactly(1, 49);
        assertThat(byEndpoint.get(endpointB)).containsExactly(1);
      });
      JsonNode first = alerts(pager, "failure").getFirst();
      assertThat(first.path("definition").asString()).isEqualTo("orders");
      assertThat(first.path("error").asString()).containsAnyOf("400", "404");
    }
  }

  @Test
  void anAlertLeftInTheOutboxByAnEndedProcessIsSentByTheNext() throws Exception {
    Path dir = TestServer.tempDir();
    try (Receiver pager = new Receiver()) {
      server = start(dir, "1h");
      String token = server.adminToken();
      define(server.as(token), "refunds", pager, "final-failure");
      server.close();
      server = null;
      // as if the process had died right after committing the outcome that raised it
      UUID notice = UUID.randomUUID();
      try (Connection c = DriverManager.getConnection(Herald.Builder.h2Url(dir.resolve("herald-server")), "sa", "");
          PreparedStatement ps = c.prepareStatement("INSERT INTO herald_alert (id, notice_id, definition, endpoint,"
              + " failures, final_failure, error, raised_at) VALUES (?, ?, 'refunds', 'https://shop.example:443', 3,"
              + " TRUE, '503 from the shop', ?)")) {
        ps.setObject(1, UUID.randomUUID());
        ps.setObject(2, notice);
        ps.setLong(3, System.currentTimeMillis());
        ps.executeUpdate();
      }
      server = start(dir, "1h");
      await().atMost(Duration.ofSeconds(15)).until(() -> !alerts(pager, "failure").isEmpty());
      JsonNode alert = alerts(pager, "failure").getFirst();
      assertThat(alert.path("noticeId").asString()).isEqualTo(notice.toString());
      assertThat(alert.path("endpoint").asString()).isEqualTo("https://shop.example:443");
      assertThat(alert.path("count").asInt()).isEqualTo(1);
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
          .until(() -> pager.requests.size() == 1);
    }
  }

  @Test
  void aRecoveryAfterARestartIsTold() throws Exception {
    Path dir = TestServer.tempDir();
    try (Receiver shop = new Receiver(); Receiver pager = new Receiver()) {
      shop.otherwise(Receiver.Response.status(503));
      server = start(dir, "1h");
      String token = server.adminToken();
      define(server.as(token), "invoices", pager, "final-failure");
      notices(server.as(token), "invoices", shop.url("/hook"), 1);
      await().atMost(Duration.ofSeconds(15)).until(() -> alerts(pager, "failure").size() == 1);
      server.close();

      shop.otherwise(Receiver.Response.ok("ok"));
      server = start(dir, "1h");
      notices(server.as(token), "invoices", shop.url("/hook"), 1);
      await().atMost(Duration.ofSeconds(15)).until(() -> alerts(pager, "recovered").size() == 1);
      assertThat(alerts(pager, "recovered").getFirst().path("endpoint").asString())
          .isEqualTo(shop.url("").replace("/", "").replace("http:", "http://"));
      notices(server.as(token), "invoices", shop.url("/hook"), 1);
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
          .until(() -> alerts(pager, "recovered").size() == 1 && alerts(pager, "failure").size() == 1);
    }
  }
}
