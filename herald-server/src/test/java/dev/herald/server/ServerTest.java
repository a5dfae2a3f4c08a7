package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;

/** What the tests against the shared server have in common. */
abstract class ServerTest {
  static final TestServer server = TestServer.shared();
  static final TestServer.Api admin = server.as(server.adminToken());
  static final TestServer.Api anonymous = server.as(null);

  /** A definition name no other test uses. */
  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Creates a definition from JSON text (without its name) and returns its name. */
  static String define(String prefix, String fieldsJson) {
    String name = unique(prefix);
    String body = "{\"name\":\"" + name + "\"" + (fieldsJson.isBlank() ? "" : "," + fieldsJson) + "}";
    TestServer.Resp r = admin.post("/api/v1/definitions", body);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return name;
  }

  /** Creates one notice from its JSON item and returns its id. */
  static String create(TestServer.Api api, String itemJson) {
    TestServer.Resp r = api.post("/api/v1/notices", "{\"notices\":[" + itemJson + "]}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("ids").get(0).asString();
  }

  static JsonNode notice(String id) {
    TestServer.Resp r = admin.get("/api/v1/notices/" + id);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    return r.json();
  }

  static JsonNode awaitStatus(String id, String status, Duration within) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await().atMost(within).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
      last.set(notice(id));
      assertThat(last.get().get("status").asString()).as(last.get().toString()).isEqualTo(status);
    });
    return last.get();
  }

  static String in(Duration d) {
    return java.time.Instant.now().plus(d).toString();
  }
}
