package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The endpoints API on a server of its own: an endpoint that keeps failing is disabled (its notices
 * wait, not DEAD), the flag survives a restart, an admin enables it again; rate limits per endpoint.
 */
class EndpointsApiTest {
  private static final String ENDPOINTS = "/api/v1/endpoints";

  private static TestServer start(Path dir) {
    return TestServer.start(dir, "--herald.http.disable-after=1s", "--herald.http.circuit-open-for=100ms",
        "--herald.http.disabled-recheck=200ms", "--herald.http.endpoint-sync=200ms");
  }

  private static JsonNode endpoint(TestServer.Api api, String url) {
    TestServer.Resp r = api.get(ENDPOINTS);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    for (JsonNode e : r.json().get("items")) {
      if (url.startsWith(e.get("endpoint").asString())) {
        return e;
      }
    }
    return null;
  }

  @Test
  void aFailingEndpointIsDisabledStaysSoAfterARestartAndAnAdminEnablesIt() throws Exception {
    Path dir = TestServer.tempDir();
    try (Receiver receiver = new Receiver().otherwise(Receiver.Response.status(500))) {
      String hook = receiver.url("/hook");
      String id;
      TestServer server = start(dir);
      String token = server.adminToken();
      try {
        TestServer.Api admin = server.as(token);
        TestServer.Resp def = admin.post("/api/v1/definitions", "{\"name\": \"flaky\", \"target\": \"" + hook
            + "\", \"retry\": \"100ms\", \"maxAttempts\": 1000}");
        assertThat(def.status()).as(def.toString()).isEqualTo(201);
        id = ServerTest.create(admin, "{\"definition\": \"flaky\", \"payload\": {\"order\": 42}}");

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
          JsonNode e = endpoint(admin, hook);
          assertThat(e).isNotNull();
          assertThat(e.get("disabled").asBoolean()).as(e.toString()).isTrue();
          assertThat(e.get("disabledReason").asString()).contains("failing without a success since")
              .contains("HTTP 500");
          assertThat(e.get("failingSince").asString()).isNotNull();
          assertThat(e.get("lastFailure").asString()).isEqualTo("HTTP 500 Internal Server Error");
        });
        int requests = receiver.count();
        // three rechecks: nothing is sent while disabled
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> receiver.count() == requests);
        assertThat(receiver.count()).isEqualTo(requests);
        assertThat(admin.get("/api/v1/notices/" + id).json().get("status").asString()).isNotEqualTo("DEAD");
      } finally {
        server.close();
      }

      receiver.otherwise(Receiver.Response.ok("ok"));
      TestServer again = start(dir);
      try {
        TestServer.Api admin = again.as(token);
        JsonNode e = endpoint(admin, hook);
        assertThat(e).as("restored from the database").isNotNull();
        assertThat(e.get("disabled").asBoolean()).isTrue();
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
            .until(() -> !admin.get("/api/v1/notices/" + id).json().get("status").asString().equals("SUCCEEDED"));
        assertThat(admin.get("/api/v1/notices/" + id).json().get("status").asString()).isNotEqualTo("SUCCEEDED");

        TestServer.Resp client = again.as(clientToken(admin)).post(ENDPOINTS + "/enable", "{\"url\": \"" + hook + "\"}");
        assertThat(client.status()).as("only admins enable").isEqualTo(403);
        TestServer.Resp enabled = admin.post(ENDPOINTS + "/enable", "{\"url\": \"" + hook + "\"}");
        assertThat(enabled.status()).as(enabled.toString()).isEqualTo(200);
        assertThat(enabled.json().get("disabled").asBoolean()).isFalse();
        assertThat(enabled.json().get("circuit").asString()).isEqualTo("CLOSED");
        await().atMost(Duration.ofSeconds(10))
            .until(() -> admin.get("/api/v1/notices/" + id).json().get("status").asString().equals("SUCCEEDED"));
      } finally {
        again.close();
      }
    }
  }

  @Test
  void anAdminSetsAnEndpointsRateAndDisablesItByHand() throws Exception {
    try (Receiver receiver = new Receiver();
        TestServer server = start(TestServer.tempDir())) {
      String hook = receiver.url("/hook");
      TestServer.Api admin = server.as(server.adminToken());
      TestServer.Resp bad = admin.put(ENDPOINTS + "/rate", "{\"url\": \"" + hook + "\", \"maxRate\": \"lots\"}");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.field()).isEqualTo("maxRate");
      TestServer.Resp badUrl = admin.put(ENDPOINTS + "/rate", "{\"url\": \"ftp://x\", \"maxRate\": \"5/s\"}");
      assertThat(badUrl.field()).isEqualTo("url");

      TestServer.Resp set = admin.put(ENDPOINTS + "/rate", "{\"url\": \"" + hook + "\", \"maxRate\": \"5/s\"}");
      assertThat(set.status()).as(set.toString()).isEqualTo(200);
      assertThat(set.json().get("maxRate").asString()).isEqualTo("5/s");
      StringBuilder items = new StringBuilder();
      for (int i = 0; i < 8; i++) {
        items.append(i == 0 ? "" : ",").append("{\"callbackUrl\": \"").append(hook).append("\", \"payload\": ").append(i)
            .append('}');
      }
      assertThat(admin.post("/api/v1/notices", "{\"notices\": [" + items + "]}").status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(10)).until(() -> receiver.count() == 8);
      long[] at = receiver.requests.stream().mapToLong(Receiver.Request::receivedAtMillis).sorted().toArray();
      // from the second on: the first may wait for the HTTP client's cold start, the rest for their turns
      assertThat(at[7] - at[1]).as("8 requests at 5/s").isGreaterThan(1_000L);
      JsonNode e = endpoint(admin, hook);
      assertThat(e.get("ownMaxRate").asString()).isEqualTo("5/s");
      assertThat(e.get("inFlight").asInt()).isZero();

      TestServer.Resp off = admin.post(ENDPOINTS + "/disable", "{\"url\": \"" + hook + "\", \"reason\": \"maintenance\"}");
      assertThat(off.json().get("disabled").asBoolean()).isTrue();
      assertThat(off.json().get("disabledReason").asString()).isEqualTo("disabled by an operator: maintenance");
      String id = ServerTest.create(admin, "{\"callbackUrl\": \"" + hook + "\", \"payload\": 9}");
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> receiver.count() == 8);
      assertThat(receiver.count()).isEqualTo(8);
      assertThat(admin.post(ENDPOINTS + "/enable", "{\"url\": \"" + hook + "\"}").status()).isEqualTo(200);
      await().atMost(Duration.ofSeconds(10)) // at its next turn: herald.http.disabled-recheck
          .until(() -> admin.get("/api/v1/notices/" + id).json().get("status").asString().equals("SUCCEEDED"));
      assertThat(admin.put(ENDPOINTS + "/rate", "{\"url\": \"" + hook + "\", \"maxRate\": null}").json()
          .get("ownMaxRate").isNull()).isTrue();
    }
  }

  private static String clientToken(TestServer.Api admin) {
    return admin.post("/api/v1/tokens", "{\"name\": \"c\", \"role\": \"client\"}").json().get("token").asString();
  }
}
