package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ordered delivery over the API: a definition with {@code ordering}, notices with an {@code orderingKey}. */
class OrderedWebhooksTest extends ServerTest {

  @Test
  void noticesOfOneKeyReachTheReceiverInOrderEvenWhenTheFirstIsRetried() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.then(Receiver.Response.status(503)).otherwise(Receiver.Response.ok("ok"));
      String def = define("ordered", "\"target\": \"%s\", \"retry\": \"300ms\", \"ordering\": \"wait\""
          .formatted(receiver.url("/orders")));
      assertThat(admin.get("/api/v1/definitions/" + def).json().get("ordering").asString()).isEqualTo("wait");
      StringBuilder items = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        items.append(i == 0 ? "" : ",").append("{\"definition\":\"%s\",\"orderingKey\":\"order-42\",\"payload\":{\"step\":%d}}"
            .formatted(def, i));
      }
      TestServer.Resp r = admin.post("/api/v1/notices", "{\"notices\":[" + items + "]}");
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      List<String> ids = new ArrayList<>();
      r.json().get("ids").forEach(id -> ids.add(id.asString()));
      for (String id : ids) {
        awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(15));
      }
      // The first answer was 503: the head was retried before anything behind it was sent.
      assertThat(receiver.requests).extracting(q -> q.body().replaceAll(".*\"step\":(\\d+).*", "$1"))
          .containsExactly("0", "0", "1", "2", "3", "4");
    }
  }

  @Test
  void badOrderingInputIsRefusedWithTheFieldAndNothingIsWritten() {
    TestServer.Resp bad = admin.post("/api/v1/definitions",
        "{\"name\":\"" + unique("bad-ordering") + "\",\"target\":\"http://127.0.0.1:9/x\",\"ordering\":\"sometimes\"}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.field()).isEqualTo("ordering");
    assertThat(bad.text()).contains("none, wait, skip");

    String plain = define("unordered", "\"target\": \"http://127.0.0.1:9/x\"");
    TestServer.Resp refused = admin.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"%s\",\"payload\":{}},"
        .formatted(plain) + "{\"definition\":\"%s\",\"orderingKey\":\"k\",\"payload\":{}}]}".formatted(plain));
    assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
    assertThat(refused.field()).isEqualTo("notices[1].orderingKey");
    assertThat(refused.text()).contains("is not ordered");
    assertThat(admin.get("/api/v1/notices?definition=" + plain).json().get("items")).isEmpty();
  }
}
