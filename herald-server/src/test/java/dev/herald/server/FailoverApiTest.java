package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Per-notice fail-over through the API: callbackUrl with fallbackUrls. */
class FailoverApiTest extends ServerTest {
  @Test
  void aCallbackWithFallbackUrlsGoesToTheNextWhenTheFirstFails() throws Exception {
    try (Receiver primary = new Receiver().otherwise(Receiver.Response.status(503));
        Receiver backup = new Receiver()) {
      String def = define("failover", "\"retry\": \"100ms\", \"options\": {\"failover-after\": \"1\"}");
      String id = create(admin, "{\"definition\": \"%s\", \"callbackUrl\": \"%s\", \"fallbackUrls\": [\"%s\"],"
          .formatted(def, primary.url("/a"), backup.url("/b")) + " \"payload\": {\"order\": 7}}");

      JsonNode n = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(15));
      assertThat(n.get("callbackUrl").asString()).isEqualTo(primary.url("/a"));
      assertThat(n.get("fallbackUrls")).extracting(JsonNode::asString).containsExactly(backup.url("/b"));
      assertThat(primary.count()).isEqualTo(1);
      assertThat(backup.count()).isEqualTo(1);
      JsonNode log = n.get("attemptLog");
      assertThat(log.get(log.size() - 1).toString()).contains("fail-over: target 2 of 2 (" + backup.url("/b") + ")");
    }
  }

  @Test
  void badFallbackUrlsAreNamedByTheirPath() {
    TestServer.Resp r = admin.post("/api/v1/notices", "{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/a\","
        + " \"fallbackUrls\": [\"http://127.0.0.1:9/b\", \"http://10.0.0.1/c\"], \"payload\": 1}]}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.field()).isEqualTo("notices[0].fallbackUrls[1]");
    assertThat(r.json().get("reason").asString()).contains("private address");
    TestServer.Resp none = admin.post("/api/v1/notices", "{\"notices\": [{\"definition\": \"callback\","
        + " \"fallbackUrls\": [\"http://127.0.0.1:9/b\"], \"payload\": 1}]}");
    assertThat(none.field()).isIn("notices[0].callbackUrl", "notices[0].fallbackUrls");
  }
}
