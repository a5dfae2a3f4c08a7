package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Event types, event endpoints and events over the API, delivered to real receivers: a platform
 * team registers partners, they subscribe, a client publishes, and each partner's delivery shows.
 */
class EventsApiTest extends ServerTest {

  private static String eventType(String prefix, String schema) {
    String name = unique(prefix);
    TestServer.Resp r = admin.post("/api/v1/event-types", "{\"name\": \"%s\", \"description\": \"test\"%s}"
        .formatted(name, schema == null ? "" : ", \"schema\": " + schema));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return name;
  }

  private static JsonNode endpoint(String json) {
    TestServer.Resp r = admin.post("/api/v1/event-endpoints", json);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json();
  }

  private static JsonNode awaitEvent(String id, int taken) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      TestServer.Resp r = admin.get("/api/v1/events/" + id);
      assertThat(r.status()).isEqualTo(200);
      last.set(r.json());
      assertThat(r.json().get("taken").asInt()).as(r.toString()).isEqualTo(taken);
    });
    return last.get();
  }

  private static TestServer.Api client() {
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\": \"%s\", \"role\": \"client\"}"
        .formatted(unique("publisher")));
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    return server.as(made.json().get("token").asString());
  }

  @Test
  void anEventGoesToEverySubscribedEndpointAndShowsWhichTookIt() throws Exception {
    try (Receiver acme = new Receiver(); Receiver globex = new Receiver(); Receiver initech = new Receiver()) {
      initech.otherwise(Receiver.Response.status(503));
      String type = eventType("order.paid", "{\"type\": \"object\", \"required\": [\"order\"], \"properties\":"
          + " {\"order\": {\"type\": \"object\", \"properties\": {\"total\": {\"type\": \"number\"}}}}}");
      String a = unique("acme");
      JsonNode created = endpoint("""
          {"id": "%s", "url": "%s", "eventTypes": ["%s"], "headers": {"X-Partner": "acme"},
           "secretHeaders": {"X-Api-Key": "k-123-secret"}, "maxRate": "50/s", "maxConcurrency": 4,
           "retry": "1s, 1m", "description": "Acme ERP"}""".formatted(a, acme.url("/hooks"), type));
      assertThat(created.get("secret").asString()).startsWith("whsec_");
      assertThat(created.get("secretHeaders").get("x-api-key").asString()).isEqualTo(Views.MASK);
      assertThat(created.get("headers").get("x-partner").asString()).isEqualTo("acme");
      assertThat(created.get("maxRate").asString()).isEqualTo("50/s");
      assertThat(created.get("definition").asString()).isEqualTo("endpoint." + a);
      assertThat(created.toString()).doesNotContain("k-123-secret");
      String g = unique("globex");
      endpoint("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"], \"filter\": {\"order.total\": {\"$gte\": 10}}}"
          .formatted(g, globex.url("/in"), type));
      String i = unique("initech");
      endpoint("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"*\"], \"retry\": \"1m\"}"
          .formatted(i, initech.url("/in")));

      TestServer.Api client = client();
      TestServer.Resp published = client.post("/api/v1/events", ("{\"type\": \"%s\", \"payload\": {\"order\":"
          + " {\"total\": 12.50}}, \"idempotencyKey\": \"%s\"}").formatted(type, unique("order")));
      assertThat(published.status()).as(published.toString()).isEqualTo(201);
      String id = published.json().get("id").asString();
      assertThat(published.json().get("deliveries")).extracting(d -> d.get("endpoint").asString())
          .contains(a, g, i);

      JsonNode seen = awaitEvent(id, 2);
      assertThat(seen.get("endpoints").asInt()).isGreaterThanOrEqualTo(3);
      JsonNode failing = null;
      for (JsonNode d : seen.get("deliveries")) {
        if (d.get("endpoint").asString().equals(i)) {
          failing = d;
        }
      }
      assertThat(failing).isNotNull();
      assertThat(failing.get("taken").asBoolean()).isFalse();
      assertThat(failing.get("lastError").asString()).startsWith("HTTP 503");

      Receiver.Request got = acme.requests.getFirst();
      assertThat(got.header("x-api-key")).isEqualTo("k-123-secret");
      assertThat(got.header("x-partner")).isEqualTo("acme");
      assertThat(got.body()).isEqualTo("{\"order\":{\"total\":12.50}}");
      assertThat(got.header("webhook-signature")).startsWith("v1,");

      // a notice of the event shows the attempt log, the secret header masked
      String acmeNotice = null;
      for (JsonNode d : seen.get("deliveries")) {
        if (d.get("endpoint").asString().equals(a)) {
          acmeNotice = d.get("noticeId").asString();
        }
      }
      JsonNode notice = notice(acmeNotice);
      assertThat(notice.get("definition").asString()).isEqualTo("endpoint." + a);
      assertThat(notice.get("attemptLog").get(0).get("detail").asString()).contains("> x-api-key: ****")
          .doesNotContain("k-123-secret");

      // the list shows it too, newest first
      JsonNode list = client.get("/api/v1/events?type=" + type).json();
      assertThat(list.get("items").get(0).get("id").asString()).isEqualTo(id);
    }
  }

  @Test
  void theSameIdempotencyKeyAnswersWithTheFirstEvent() throws Exception {
    try (Receiver acme = new Receiver()) {
      String type = eventType("invoice.issued", null);
      endpoint("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"]}".formatted(unique("acme"), acme.url("/in"),
          type));
      String body = "{\"type\": \"%s\", \"payload\": {\"n\": 1}, \"idempotencyKey\": \"%s\"}".formatted(type, unique("k"));
      TestServer.Resp first = admin.post("/api/v1/events", body);
      TestServer.Resp again = admin.post("/api/v1/events", body);
      assertThat(first.status()).isEqualTo(201);
      assertThat(again.status()).isEqualTo(200);
      assertThat(again.json().get("id").asString()).isEqualTo(first.json().get("id").asString());
      awaitEvent(first.json().get("id").asString(), 1);
      assertThat(acme.requests).hasSize(1);
    }
  }

  @Test
  void refusalsNameTheFieldAndWriteNothing() {
    String type = eventType("order.shipped", "{\"type\": \"object\", \"required\": [\"parcel\"], \"properties\":"
        + " {\"parcel\": {\"type\": \"object\", \"properties\": {\"weight\": {\"type\": \"number\", \"minimum\": 0}}}}}");
    TestServer.Resp bad = admin.post("/api/v1/events", "{\"type\": \"%s\", \"payload\": {\"parcel\": {\"weight\": -1}}}"
        .formatted(type));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("field").asString()).isEqualTo("payload.parcel.weight");
    assertThat(bad.json().get("reason").asString()).isEqualTo("must be at least 0, was -1");
    assertThat(admin.get("/api/v1/events?type=" + type).json().get("items")).isEmpty();

    TestServer.Resp unknownType = admin.post("/api/v1/events", "{\"type\": \"no.such.type\", \"payload\": {}}");
    assertThat(unknownType.json().get("field").asString()).isEqualTo("type");

    TestServer.Resp badSchema = admin.post("/api/v1/event-types", "{\"name\": \"x\", \"schema\": {\"type\": \"int\"}}");
    assertThat(badSchema.status()).isEqualTo(400);
    assertThat(badSchema.json().get("field").asString()).isEqualTo("schema");

    TestServer.Resp typo = admin.post("/api/v1/event-endpoints", "{\"url\": \"https://partner.example/in\","
        + " \"eventTypes\": [\"no.such.type\"]}");
    assertThat(typo.status()).isEqualTo(400);
    assertThat(typo.json().get("field").asString()).isEqualTo("eventTypes");
    TestServer.Resp badRate = admin.post("/api/v1/event-endpoints", "{\"url\": \"https://partner.example/in\","
        + " \"maxRate\": \"lots\"}");
    assertThat(badRate.json().get("field").asString()).isEqualTo("maxRate");
    TestServer.Resp metadata = admin.post("/api/v1/event-endpoints", "{\"url\": \"http://169.254.169.254/\"}");
    assertThat(metadata.json().get("field").asString()).isEqualTo("url");
    TestServer.Resp ownHeader = admin.post("/api/v1/event-endpoints", "{\"url\": \"https://partner.example/in\","
        + " \"headers\": {\"webhook-id\": \"x\"}}");
    assertThat(ownHeader.json().get("field").asString()).isEqualTo("headers.webhook-id");
  }

  @Test
  void secretsAreForAdminsRotateAndKeepThePreviousOne() throws Exception {
    String id = unique("acme");
    JsonNode created = endpoint(("{\"id\": \"%s\", \"url\": \"https://acme.example/in\", \"secretHeaders\":"
        + " {\"Authorization\": \"Bearer t0ken\"}}").formatted(id));
    String first = created.get("secret").asString();
    TestServer.Api client = client();
    assertThat(client.get("/api/v1/event-endpoints/" + id + "/secrets").status()).isEqualTo(403);
    assertThat(client.get("/api/v1/event-endpoints/" + id).json().get("secretHeaders").get("authorization").asString())
        .isEqualTo(Views.MASK);
    assertThat(client.post("/api/v1/event-endpoints/" + id + "/disable").status()).isEqualTo(403);

    String second = admin.post("/api/v1/event-endpoints/" + id + "/secrets/rotate").json().get("secret").asString();
    assertThat(admin.get("/api/v1/event-endpoints/" + id + "/secrets").json().get("secrets"))
        .extracting(JsonNode::asString).containsExactly(second, first);

    // a PUT sending the masks back keeps the stored secret header, and leaving out secrets keeps them
    TestServer.Resp put = admin.put("/api/v1/event-endpoints/" + id, "{\"url\": \"https://acme.example/v2\","
        + " \"secretHeaders\": {\"authorization\": \"********\"}, \"enabled\": false}");
    assertThat(put.status()).as(put.toString()).isEqualTo(200);
    assertThat(put.json().get("enabled").asBoolean()).isFalse();
    assertThat(put.json().get("secrets").asInt()).isEqualTo(2);
    assertThat(admin.delete("/api/v1/event-endpoints/" + id + "/secrets/previous").json().get("secrets").asInt())
        .isEqualTo(1);
    assertThat(admin.delete("/api/v1/event-endpoints/" + id).status()).isEqualTo(204);
    assertThat(admin.get("/api/v1/event-endpoints/" + id).status()).isEqualTo(404);
    assertThat(admin.get("/api/v1/definitions/endpoint." + id).status()).isEqualTo(404);
  }
}
