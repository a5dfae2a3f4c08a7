package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Document 002's API over HTTP: batch create, edit, cancel and query, search, confirm, resend, recover. */
class NoticesApiTest extends ServerTest {

  @Test
  void aDirectCallbackIsPostedToItsUrlWithThePayloadAsGiven() throws Exception {
    try (Receiver receiver = new Receiver()) {
      TestServer.Resp r = admin.post("/api/v1/notices", """
          {"notices": [{"callbackUrl": "%s", "payload": {"order": 42, "amount": 1.10, "note": "caf\u00e9"},
                        "description": "close order 42"}]}""".formatted(receiver.url("/orders/42/close")));
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      String id = r.json().get("ids").get(0).asString();
      assertThat(r.json().get("notices").get(0).get("created").asBoolean()).isTrue();

      JsonNode done = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
      assertThat(receiver.requests).singleElement().satisfies(req -> {
        assertThat(req.path()).isEqualTo("/orders/42/close");
        assertThat(req.body()).isEqualTo("{\"order\":42,\"amount\":1.10,\"note\":\"caf\u00e9\"}");
        assertThat(req.header("webhook-id")).isEqualTo(id);
        assertThat(req.header("content-type")).isEqualTo("application/json");
      });
      assertThat(done.get("definition").asString()).isEqualTo("callback");
      assertThat(done.get("callbackUrl").asString()).isEqualTo(receiver.url("/orders/42/close"));
      assertThat(admin.get("/api/v1/notices/" + id).text()).as("the payload as stored, in the answer")
          .contains("\"payload\":{\"order\":42,\"amount\":1.10,\"note\":\"caf\u00e9\"}");
      assertThat(done.get("attempts").asInt()).isEqualTo(1);
      assertThat(done.get("attemptLog")).singleElement().satisfies(a -> {
        assertThat(a.get("outcome").asString()).isEqualTo("DELIVERED");
        assertThat(a.get("detail").asString()).contains("HTTP 200").contains("> POST " + receiver.url("/orders/42/close"));
      });
    }
  }

  @Test
  void aDelayedNoticeFiresAtItsEditedTimeWithItsEditedPayloadAndACancelledOneNever() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String def = define("delayed", "\"target\": \"%s\", \"retry\": \"1s\"".formatted(receiver.url("/fixed")));
      TestServer.Resp created = admin.post("/api/v1/notices", """
          {"notices": [
            {"definition": "%s", "payload": {"v": "first"}, "delay": "6s"},
            {"definition": "%s", "payload": {"v": "cancelled"}, "fireAt": "%s"},
            {"callbackUrl": "%s", "payload": "to another URL", "delay": "6s"}
          ]}""".formatted(def, def, in(Duration.ofSeconds(3)), receiver.url("/direct")));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      List<String> ids = new ArrayList<>();
      created.json().get("ids").forEach(n -> ids.add(n.asString()));
      assertThat(ids).hasSize(3).doesNotHaveDuplicates();

      Instant fireAt = Instant.now().plusMillis(1500);
      TestServer.Resp edited = admin.patch("/api/v1/notices", """
          {"notices": [
            {"id": "%s", "fireAt": "%s", "payload": {"v": "edited"}},
            {"id": "%s", "delay": "1500ms", "callbackUrl": "%s"}
          ]}""".formatted(ids.get(0), fireAt, ids.get(2), receiver.url("/moved")));
      assertThat(edited.status()).as(edited.toString()).isEqualTo(200);
      assertThat(edited.json().get("succeeded").asInt()).isEqualTo(2);
      assertThat(edited.json().get("results").get(0).get("notice").get("fireAt").asString())
          .as("stored in whole milliseconds, rounded up so that it never fires early")
          .isEqualTo(ceilMillis(fireAt).toString());

      TestServer.Resp cancelled = admin.post("/api/v1/notices/cancel", "{\"ids\": [\"%s\"]}".formatted(ids.get(1)));
      assertThat(cancelled.json().get("results").get(0).get("status").asInt()).isEqualTo(200);
      assertThat(cancelled.json().get("results").get(0).get("notice").get("status").asString()).isEqualTo("CANCELLED");

      await().atMost(Duration.ofSeconds(5)).until(() -> receiver.count() >= 2);
      Receiver.Request first = receiver.requests.stream().filter(q -> q.path().equals("/fixed")).findFirst().orElseThrow();
      assertThat(first.body()).isEqualTo("{\"v\":\"edited\"}");
      assertThat(first.receivedAtMillis()).as("on time, not early")
          .isBetween(fireAt.toEpochMilli() - 20, fireAt.toEpochMilli() + 1000);
      assertThat(receiver.requests).extracting(Receiver.Request::path).containsExactlyInAnyOrder("/fixed", "/moved");

      // Past the cancelled one's time: still only the two.
      Thread.sleep(Math.max(0, Duration.between(Instant.now(), fireAt.plusMillis(2000)).toMillis()));
      assertThat(receiver.count()).isEqualTo(2);

      // Batch query: statuses, attempts; an unknown id is reported on its own.
      String unknown = "0197a3c2-5a4e-7b61-9a3e-2f9d1c0b8e77";
      TestServer.Resp looked = admin.post("/api/v1/notices/lookup", """
          {"ids": ["%s", "%s", "%s"], "attemptLog": true}""".formatted(ids.get(0), ids.get(1), unknown));
      JsonNode results = looked.json().get("results");
      assertThat(results.get(0).get("notice").get("status").asString()).isEqualTo("SUCCEEDED");
      assertThat(results.get(0).get("notice").get("attempts").asInt()).isEqualTo(1);
      assertThat(results.get(0).get("notice").get("attemptLog")).hasSize(1);
      assertThat(results.get(1).get("notice").get("status").asString()).isEqualTo("CANCELLED");
      assertThat(results.get(1).get("notice").get("attempts").asInt()).isZero();
      assertThat(results.get(2).get("status").asInt()).isEqualTo(404);
      assertThat(results.get(2).get("error").get("field").asString()).isEqualTo("ids[2]");
      assertThat(looked.json().get("succeeded").asInt()).isEqualTo(2);
      assertThat(looked.json().get("failed").asInt()).isEqualTo(1);

      // Delivered and cancelled notices can no longer be edited or cancelled: 409 per item.
      TestServer.Resp late = admin.patch("/api/v1/notices", """
          {"notices": [{"id": "%s", "payload": 1}, {"id": "%s", "payload": 2}]}""".formatted(ids.get(0), unknown));
      assertThat(late.status()).isEqualTo(200);
      assertThat(late.json().get("results").get(0).get("status").asInt()).isEqualTo(409);
      assertThat(late.json().get("results").get(0).get("error").get("error").asString()).isEqualTo("illegal_transition");
      assertThat(late.json().get("results").get(0).get("error").get("field").asString()).isEqualTo("notices[0].id");
      assertThat(late.json().get("results").get(1).get("status").asInt()).isEqualTo(404);
      TestServer.Resp again = admin.post("/api/v1/notices/cancel", "{\"ids\": [\"%s\"]}".formatted(ids.get(1)));
      assertThat(again.json().get("results").get(0).get("status").asInt()).isEqualTo(409);
    }
  }

  @Test
  void aBatchIsAllOrNothingAndItsIdsComeBackInOrder() {
    String def = define("batch", "\"target\": \"http://127.0.0.1:9/never\", \"retry\": \"1h\"");
    TestServer.Resp refused = admin.post("/api/v1/notices", """
        {"notices": [
          {"definition": "%s", "payload": 0, "delay": "1h"},
          {"definition": "%s", "payload": 1, "delay": "1h"},
          {"definition": "%s", "payload": 2, "delay": "1h", "callbackUrl": "http://10.0.0.7/hook"}
        ]}""".formatted(def, def, def));
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.field()).isEqualTo("notices[2].callbackUrl");
    assertThat(admin.get("/api/v1/notices?definition=" + def).json().get("items")).as("nothing written").isEmpty();

    StringBuilder items = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      items.append(i == 0 ? "" : ",").append("{\"definition\":\"%s\",\"payload\":{\"n\":%d},\"delay\":\"1h\"}"
          .formatted(def, i));
    }
    TestServer.Resp ok = admin.post("/api/v1/notices", "{\"notices\":[" + items + "]}");
    assertThat(ok.status()).isEqualTo(201);
    JsonNode ids = ok.json().get("ids");
    assertThat(ids).hasSize(20);
    StringBuilder idList = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      idList.append(i == 0 ? "" : ",").append('"').append(ids.get(i).asString()).append('"');
      assertThat(ok.json().get("notices").get(i).get("id").asString()).isEqualTo(ids.get(i).asString());
    }
    JsonNode results = admin.post("/api/v1/notices/lookup", "{\"ids\":[" + idList + "]}").json().get("results");
    for (int i = 0; i < 20; i++) {
      assertThat(results.get(i).get("notice").get("payload").get("n").asInt()).isEqualTo(i);
      assertThat(results.get(i).get("notice").get("status").asString()).isEqualTo("PENDING");
    }
  }

  @Test
  void anIdempotencyKeyReturnsTheFirstNoticeAndWritesNothing() {
    String def = define("idem", "\"target\": \"http://127.0.0.1:9/never\"");
    String item = "{\"definition\":\"%s\",\"payload\":{\"order\":7},\"delay\":\"1h\",\"idempotencyKey\":\"order-7-paid\"}"
        .formatted(def);
    TestServer.Resp first = admin.post("/api/v1/notices", "{\"notices\":[" + item + "]}");
    assertThat(first.status()).isEqualTo(201);
    TestServer.Resp second = admin.post("/api/v1/notices", "{\"notices\":[" + item + "]}");
    assertThat(second.status()).as("nothing created").isEqualTo(200);
    assertThat(second.json().get("ids").get(0).asString()).isEqualTo(first.json().get("ids").get(0).asString());
    assertThat(second.json().get("notices").get(0).get("created").asBoolean()).isFalse();
    assertThat(admin.get("/api/v1/notices?definition=" + def).json().get("items")).hasSize(1);
  }

  @Test
  void createdComesFromTheStoreForEachItemOfABatch() {
    String def = define("idem-batch", "\"target\": \"http://127.0.0.1:9/never\"");
    String item = "{\"definition\":\"%s\",\"payload\":%d,\"delay\":\"1h\",\"idempotencyKey\":\"%s\"}";
    TestServer.Resp first = admin.post("/api/v1/notices", "{\"notices\":[" + item.formatted(def, 1, "a") + "]}");
    assertThat(first.status()).isEqualTo(201);
    // a replayed key, a new one, and the new one again in the same request: only the second is created
    TestServer.Resp mixed = admin.post("/api/v1/notices", "{\"notices\":[" + item.formatted(def, 1, "a") + ","
        + item.formatted(def, 2, "b") + "," + item.formatted(def, 3, "b") + "]}");
    assertThat(mixed.status()).as(mixed.toString()).isEqualTo(201);
    JsonNode results = mixed.json().get("notices");
    assertThat(results.get(0).get("created").asBoolean()).isFalse();
    assertThat(results.get(0).get("id").asString()).isEqualTo(first.json().get("ids").get(0).asString());
    assertThat(results.get(1).get("created").asBoolean()).isTrue();
    assertThat(results.get(2).get("created").asBoolean()).as("the same key again in one request").isFalse();
    assertThat(results.get(2).get("id").asString()).isEqualTo(results.get(1).get("id").asString());
    assertThat(admin.get("/api/v1/notices?definition=" + def).json().get("items")).hasSize(2);
  }

  @Test
  void anErrorTheEngineFindsInTheThirdItemNamesItAndWritesNothing() {
    String def = define("engine-refusal", "\"target\": \"http://127.0.0.1:9/never\"");
    String ok = "{\"definition\":\"%s\",\"payload\":1,\"delay\":\"1h\"}".formatted(def);
    // ordering keys are checked by the engine against the definition, not by the server's parsing
    TestServer.Resp refused = admin.post("/api/v1/notices", "{\"notices\":[" + ok + "," + ok + ","
        + "{\"definition\":\"%s\",\"payload\":3,\"orderingKey\":\"k\"}]}".formatted(def));
    assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
    assertThat(refused.field()).isEqualTo("notices[2].orderingKey");
    assertThat(refused.text()).contains("is not ordered");
    assertThat(admin.get("/api/v1/notices?definition=" + def).json().get("items")).as("nothing written").isEmpty();
  }

  @Test
  void searchFiltersAndPages() {
    String def = define("search", "\"target\": \"http://127.0.0.1:9/never\"");
    Instant before = Instant.now().minusSeconds(1);
    for (int i = 0; i < 5; i++) {
      create(admin, "{\"definition\":\"%s\",\"payload\":%d,\"delay\":\"1h\"}".formatted(def, i));
    }
    String base = "/api/v1/notices?definition=" + def;
    List<Integer> seen = new ArrayList<>();
    Instant newest = Instant.MAX;
    for (int offset = 0; offset < 5; offset += 2) {
      JsonNode page = admin.get(base + "&limit=2&offset=" + offset).json();
      assertThat(page.get("items")).hasSize(offset < 4 ? 2 : 1);
      assertThat(page.get("hasMore").asBoolean()).isEqualTo(offset < 4);
      for (JsonNode n : page.get("items")) {
        seen.add(n.get("payload").asInt());
        Instant created = Instant.parse(n.get("createdAt").asString());
        assertThat(created).as("newest first").isBeforeOrEqualTo(newest);
        newest = created;
      }
    }
    assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    assertThat(admin.get(base + "&status=PENDING,FAILED").json().get("items")).hasSize(5);
    assertThat(admin.get(base + "&status=dead").json().get("items")).isEmpty();
    assertThat(admin.get(base + "&createdFrom=" + before + "&createdTo=" + Instant.now().plusSeconds(1))
        .json().get("items")).hasSize(5);
    assertThat(admin.get(base + "&createdFrom=" + Instant.now().plusSeconds(60)).json().get("items")).isEmpty();
  }

  @Test
  void confirmResendAndBulkRecover() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String confirmed = define("confirmed", "\"target\": \"%s\", \"confirmRequired\": true, \"confirmTimeout\": \"1h\""
          .formatted(receiver.url("/report")));
      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{\"day\":\"2026-05-01\"}}".formatted(confirmed));
      awaitStatus(id, "AWAITING_CONFIRM", Duration.ofSeconds(10));
      TestServer.Resp ok = admin.post("/api/v1/notices/" + id + "/confirm");
      assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
      assertThat(ok.json().get("status").asString()).isEqualTo("SUCCEEDED");
      TestServer.Resp again = admin.post("/api/v1/notices/" + id + "/confirm");
      assertThat(again.status()).as("confirming twice is idempotent").isEqualTo(200);
      assertThat(again.json().get("status").asString()).isEqualTo("SUCCEEDED");

      TestServer.Resp resent = admin.post("/api/v1/notices/" + id + "/resend");
      assertThat(resent.status()).isEqualTo(200);
      awaitStatus(id, "AWAITING_CONFIRM", Duration.ofSeconds(10));
      assertThat(receiver.count()).isEqualTo(2);

      // A definition whose receiver fails: one attempt, DEAD; recovered once the receiver is back.
      receiver.otherwise(Receiver.Response.status(500));
      Instant start = Instant.now().minusSeconds(1);
      String fragile = define("fragile", "\"target\": \"%s\", \"maxAttempts\": 1".formatted(receiver.url("/fragile")));
      String dead = create(admin, "{\"definition\":\"%s\",\"payload\":{}}".formatted(fragile));
      JsonNode d = awaitStatus(dead, "DEAD", Duration.ofSeconds(10));
      assertThat(d.get("lastError").asString()).contains("HTTP 500");
      receiver.otherwise(Receiver.Response.ok(""));
      TestServer.Resp recovered = admin.post("/api/v1/notices/recover", """
          {"definition": "%s", "from": "%s", "to": "%s"}""".formatted(fragile, start, Instant.now().plusSeconds(1)));
      assertThat(recovered.status()).as(recovered.toString()).isEqualTo(200);
      assertThat(recovered.json().get("recovered").asInt()).isEqualTo(1);
      awaitStatus(dead, "SUCCEEDED", Duration.ofSeconds(10));
    }
  }

  private static Instant ceilMillis(Instant t) {
    Instant floor = t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    return floor.equals(t) ? t : floor.plusMillis(1);
  }
}
