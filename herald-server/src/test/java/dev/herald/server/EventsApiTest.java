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
           "retry": "1s, 1m", "description": "Acme ERP", "options": {"full-success-log": "true"}}""".formatted(a, acme.url("/hooks"), type));
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

  /** An admin and a client of a new tenant. */
  private record TenantCallers(String tenant, TestServer.Api admin, TestServer.Api client) {
    static TenantCallers create(String prefix) {
      String id = unique(prefix).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
      id = id.length() > 40 ? id.substring(0, 40) : id;
      TestServer.Resp t = EventsApiTest.admin.post("/api/v1/tenants", "{\"id\": \"" + id + "\"}");
      assertThat(t.status()).as(t.toString()).isEqualTo(201);
      return new TenantCallers(id, token(id, "admin"), token(id, "client"));
    }

    private static TestServer.Api token(String tenant, String role) {
      TestServer.Resp r = EventsApiTest.admin.post("/api/v1/tokens", "{\"name\": \"%s\", \"role\": \"%s\", \"tenant\": \"%s\"}"
          .formatted(unique(role), role, tenant));
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      return server.as(r.json().get("token").asString());
    }
  }

  @Test
  void eachTenantHasItsOwnTypesEndpointsAndEventsAndAnotherTenantsAnswer404() throws Exception {
    try (Receiver mine = new Receiver(); Receiver theirs = new Receiver()) {
      TenantCallers shop = TenantCallers.create("shop");
      TenantCallers bank = TenantCallers.create("bank");
      // the same type name and endpoint id in both tenants: they are different things
      for (TenantCallers t : java.util.List.of(shop, bank)) {
        assertThat(t.admin().post("/api/v1/event-types", "{\"name\": \"invoice.sent\"}").status()).isEqualTo(201);
        TestServer.Resp ep = t.admin().post("/api/v1/event-endpoints", ("{\"id\": \"partner\", \"url\": \"%s\","
            + " \"eventTypes\": [\"invoice.sent\"]}").formatted((t == shop ? mine : theirs).url("/" + t.tenant())));
        assertThat(ep.status()).as(ep.toString()).isEqualTo(201);
      }
      assertThat(shop.client().post("/api/v1/event-types", "{\"name\": \"x.y\"}").status()).isEqualTo(403);

      TestServer.Resp published = shop.client().post("/api/v1/events", "{\"type\": \"invoice.sent\","
          + " \"idempotencyKey\": \"inv-1\", \"payload\": {\"n\": 1}}");
      assertThat(published.status()).as(published.toString()).isEqualTo(201);
      String event = published.json().get("id").asString();
      String notice = published.json().get("deliveries").get(0).get("noticeId").asString();
      await().atMost(Duration.ofSeconds(15)).until(() -> mine.requests.size() == 1);
      assertThat(mine.requests.getFirst().path()).isEqualTo("/" + shop.tenant());
      // the same key in the other tenant is another event
      TestServer.Resp other = bank.client().post("/api/v1/events", "{\"type\": \"invoice.sent\","
          + " \"idempotencyKey\": \"inv-1\", \"payload\": {\"n\": 2}}");
      assertThat(other.status()).isEqualTo(201);
      assertThat(other.json().get("id").asString()).isNotEqualTo(event);
      await().atMost(Duration.ofSeconds(15)).until(() -> theirs.requests.size() == 1);
      assertThat(mine.requests).hasSize(1);

      assertThat(shop.client().get("/api/v1/events/" + event).status()).isEqualTo(200);
      assertThat(shop.client().get("/api/v1/notices/" + notice).status()).as("the event's notice is the tenant's")
          .isEqualTo(200);
      for (String path : java.util.List.of("/api/v1/events/" + event, "/api/v1/notices/" + notice)) {
        assertThat(bank.client().get(path).status()).as(path).isEqualTo(404);
        assertThat(bank.admin().get(path).status()).as(path).isEqualTo(404);
      }
      assertThat(bank.client().get("/api/v1/events").json().get("items")).extracting(e -> e.get("id").asString())
          .containsExactly(other.json().get("id").asString());
      // the default tenant's callers (a token of every tenant acts for it) do not see them either
      assertThat(admin.get("/api/v1/events/" + event).status()).isEqualTo(404);
      assertThat(admin.get("/api/v1/event-endpoints/partner").status()).isEqualTo(404);

      // bank's admin changes bank's endpoint only; shop's stays as it was
      assertThat(bank.admin().post("/api/v1/event-endpoints/partner/disable").status()).isEqualTo(200);
      assertThat(shop.admin().get("/api/v1/event-endpoints/partner").json().get("enabled").asBoolean()).isTrue();
      assertThat(bank.admin().delete("/api/v1/event-types/invoice.sent").status()).isEqualTo(204);
      assertThat(shop.admin().get("/api/v1/event-types/invoice.sent").status()).isEqualTo(200);
      assertThat(shop.admin().get("/api/v1/definitions/" + shop.tenant() + ".endpoint.partner").status())
          .as("the endpoint's definition is the tenant's").isEqualTo(200);
      assertThat(bank.admin().get("/api/v1/definitions/" + shop.tenant() + ".endpoint.partner").status())
          .isEqualTo(404);
    }
  }
}
