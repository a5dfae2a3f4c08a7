package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.NoticeRequest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A payload of the create path is parsed once, by {@link JsonBody}: the core gets it as a checked
 * {@link dev.herald.JsonPayload} (which intake does not scan again), stored exactly as it was before.
 */
class PayloadOnceTest extends ServerTest {
  /** Spaced, with escapes Jackson writes back differently, a number as written and a lone surrogate. */
  private static final String PAYLOAD = "{ \"s\" : \"q\\\" s\\/ \\u0001 \\u00e9 \\ud800\",\n"
      + " \"n\": [1.10, -0, 2E+3, true, null], \"e\": {} }";
  private static final String STORED = "{\"s\":\"q\\\" s/ \\u0001 \u00e9 \\uD800\",\"n\":[1.10,-0,2E+3,true,null],\"e\":{}}";

  @Test
  void theCreatePathHandsTheCoreACheckedPayload() {
    byte[] body = ("{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"payload\":" + PAYLOAD + "}]}")
        .getBytes(StandardCharsets.UTF_8);
    JsonNode in = JsonBody.read(new ByteArrayInputStream(body), body.length,
        new JsonBody.Limits(body.length, 10, 100, 4096, 10_000), new JsonBody.InFlight(1 << 20), Duration.ofSeconds(1));
    Herald herald = server.context.getBean(Herald.class);
    NoticeRequest r = server.context.getBean(NoticeCreateController.class).createRequest(
        in.get("notices").get(0), "notices[0]", name -> herald.definitions().find(name), null,
        new Caller("test", null, java.util.EnumSet.allOf(Permission.class), "127.0.0.1"));
    assertThat(r.checkedPayload()).as("a String payload would be scanned again at intake").isNotNull();
    assertThat(r.payload()).isSameAs(r.checkedPayload().text()).isEqualTo(STORED);
  }

  @Test
  void thePayloadIsStoredCompactWithTheSameEscapesAsBefore() {
    String id = create(admin, "{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"delay\":\"1h\",\"payload\":" + PAYLOAD + "}");
    TestServer.Resp r = admin.get("/api/v1/notices/" + id);
    assertThat(r.text()).contains("\"payload\":" + STORED);
  }
}
