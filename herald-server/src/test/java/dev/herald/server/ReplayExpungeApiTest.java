package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Replay of an event endpoint's deliveries in a time range, and expunge of notices and events (by id
 * and by idempotency key), over the API against a real receiver; admins only; other tenants' answer 404.
 */
class ReplayExpungeApiTest extends ServerTest {

  private static JsonNode awaitTaken(String event, int taken) {
    await().atMost(Duration.ofSeconds(15)).until(() ->
        admin.get("/api/v1/events/" + event).json().get("taken").asInt() == taken);
    return admin.get("/api/v1/events/" + event).json();
  }

  @Test
  void anEndpointsDeliveriesOfARangeAreSentAgainAllOrOnlyTheFailedOnes() throws Exception {
    try (Receiver ok = new Receiver(); Receiver down = new Receiver()) {
      down.otherwise(Receiver.Response.status(500));
      String type = unique("invoice.sent");
      assertThat(admin.post("/api/v1/event-types", "{\"name\": \"" + type + "\"}").status()).isEqualTo(201);
      String a = unique("ok");
      String b = unique("down");
      assertThat(admin.post("/api/v1/event-endpoints", ("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"]}")
          .formatted(a, ok.url("/in"), type)).status()).isEqualTo(201);
      assertThat(admin.post("/api/v1/event-endpoints", ("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"],"
          + " \"maxAttempts\": 1}").formatted(b, down.url("/in"), type)).status()).isEqualTo(201);
      Instant from = Instant.now().minusSeconds(1);
      String event = admin.post("/api/v1/events", "{\"type\": \"" + type + "\", \"payload\": {\"n\": 1}}").json()
          .get("id").asString();
      awaitTaken(event, 1);
      await().atMost(Duration.ofSeconds(15)).until(() -> down.requests.size() == 1);
      Instant to = Instant.now().plusSeconds(1);
      String range = "\"from\": \"" + from + "\", \"to\": \"" + to + "\"";

      TestServer.Resp all = admin.post("/api/v1/event-endpoints/" + a + "/replay", "{" + range + "}");
      assertThat(all.status()).as(all.toString()).isEqualTo(200);
      assertThat(all.json().get("resent").asInt()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(15)).until(() -> ok.requests.size() == 2);
      TestServer.Resp failedOnly = admin.post("/api/v1/event-endpoints/" + a + "/replay",
          "{" + range + ", \"only\": \"failed\"}");
      assertThat(failedOnly.json().get("matched").asInt()).as("nothing failed there").isZero();

      down.otherwise(Receiver.Response.ok("ok")); // the partner is back: send what it missed
      TestServer.Resp missed = admin.post("/api/v1/event-endpoints/" + b + "/replay",
          "{" + range + ", \"only\": \"failed\"}");
      assertThat(missed.json().get("resent").asInt()).isEqualTo(1);
      awaitTaken(event, 2);

      TestServer.Resp client = server.as(admin.post("/api/v1/tokens", "{\"name\": \"" + unique("c")
          + "\", \"role\": \"client\"}").json().get("token").asString()).post("/api/v1/event-endpoints/" + a + "/replay",
          "{" + range + "}");
      assertThat(client.status()).isEqualTo(403);
      assertThat(admin.post("/api/v1/event-endpoints/" + a + "/replay", "{\"from\": \"" + to + "\"}").json()
          .get("field").asString()).isEqualTo("to");
    }
  }

  @Test
  void finishedNoticesAndEventsAreExpungedKeepingIdsTimesAndOutcomes() throws Exception {
    try (Receiver r = new Receiver()) {
      String def = unique("people");
      assertThat(admin.post("/api/v1/definitions", "{\"name\": \"" + def + "\", \"target\": \"" + r.url("/p")
          + "\"}").status()).isEqualTo(201);
      String id = admin.post("/api/v1/notices", "{\"notices\": [{\"definition\": \"" + def + "\", \"idempotencyKey\":"
          + " \"ann\", \"payload\": {\"email\": \"ann@example.com\"}}]}").json().get("ids").get(0).asString();
      await().atMost(Duration.ofSeconds(15)).until(() ->
          admin.get("/api/v1/notices/" + id).json().get("status").asString().equals("SUCCEEDED"));
      String later = admin.post("/api/v1/notices", "{\"notices\": [{\"definition\": \"" + def + "\", \"delay\": \"1h\","
          + " \"payload\": {\"email\": \"bo@example.com\"}}]}").json().get("ids").get(0).asString();

      TestServer.Resp byKey = admin.post("/api/v1/notices/expunge", "{\"definition\": \"" + def
          + "\", \"idempotencyKey\": \"ann\"}");
      assertThat(byKey.status()).as(byKey.toString()).isEqualTo(200);
      assertThat(byKey.json().get("expunged").get(0).asString()).isEqualTo(id);
      JsonNode n = admin.get("/api/v1/notices/" + id).json();
      assertThat(n.toString()).doesNotContain("ann@example.com");
      assertThat(n.get("status").asString()).isEqualTo("SUCCEEDED");
      assertThat(admin.post("/api/v1/notices/" + id + "/expunge").status()).as("again: nothing left").isEqualTo(200);
      TestServer.Resp live = admin.post("/api/v1/notices/" + later + "/expunge");
      assertThat(live.status()).isEqualTo(409);
      assertThat(live.json().get("error").asString()).isEqualTo("not_finished");
      assertThat(admin.post("/api/v1/notices/expunge", "{\"definition\": \"" + def + "\", \"idempotencyKey\": \"x\"}")
          .status()).isEqualTo(404);

      String type = unique("user.created");
      assertThat(admin.post("/api/v1/event-types", "{\"name\": \"" + type + "\"}").status()).isEqualTo(201);
      assertThat(admin.post("/api/v1/event-endpoints", ("{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"]}")
          .formatted(unique("crm"), r.url("/crm"), type)).status()).isEqualTo(201);
      String event = admin.post("/api/v1/events", "{\"type\": \"" + type + "\", \"idempotencyKey\": \"user-7\","
          + " \"payload\": {\"email\": \"cy@example.com\"}}").json().get("id").asString();
      awaitTaken(event, 1);
      TestServer.Resp ev = admin.post("/api/v1/events/expunge", "{\"idempotencyKey\": \"user-7\"}");
      assertThat(ev.status()).as(ev.toString()).isEqualTo(200);
      assertThat(ev.json().get("expunged").size()).isEqualTo(1);
      JsonNode seen = admin.get("/api/v1/events/" + event).json();
      assertThat(seen.get("expunged").asBoolean()).isTrue();
      assertThat(seen.toString()).doesNotContain("cy@example.com");
      String notice = seen.get("deliveries").get(0).get("noticeId").asString();
      assertThat(admin.get("/api/v1/notices/" + notice).json().toString()).doesNotContain("cy@example.com");
      assertThat(admin.get("/api/v1/audit?action=event.expunge").json().toString()).contains(event);

      // another tenant's admin cannot reach them
      String tenant = unique("xp").toLowerCase(java.util.Locale.ROOT);
      assertThat(admin.post("/api/v1/tenants", "{\"id\": \"" + tenant + "\"}").status()).isEqualTo(201);
      TestServer.Api other = server.as(admin.post("/api/v1/tokens", "{\"name\": \"" + unique("a")
          + "\", \"role\": \"admin\", \"tenant\": \"" + tenant + "\"}").json().get("token").asString());
      assertThat(other.post("/api/v1/notices/" + later + "/expunge").status()).isEqualTo(404);
      assertThat(other.post("/api/v1/events/" + event + "/expunge").status()).isEqualTo(404);
    }
  }
}
