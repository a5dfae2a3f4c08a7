package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Recurring notices over the API on a running server: a schedule every second delivers one notice
 * per slot to a real receiver, shows its slots and notices, pauses; refusals name the field; a
 * tenant's schedules and their notices are its own.
 */
class RecurringApiTest extends ServerTest {

  private static String definition(Receiver receiver) {
    String name = unique("recurring");
    TestServer.Resp d = admin.post("/api/v1/definitions", "{\"name\": \"" + name + "\", \"target\": \""
        + receiver.url("/tick") + "\", \"retry\": \"1h\"}");
    assertThat(d.status()).as(d.toString()).isEqualTo(201);
    return name;
  }

  @Test
  void aScheduleEverySecondDeliversOneNoticePerSlotShowsThemAndPauses() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String def = definition(receiver);
      String name = unique("tick");
      TestServer.Resp created = admin.post("/api/v1/recurring", """
          {"name": "%s", "definition": "%s", "every": "1s", "missed": "skip",
           "payload": {"report": "{{schedule}}", "slot": "{{slot}}"}}""".formatted(name, def));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      assertThat(created.json().get("every").asString()).isEqualTo("1s");
      assertThat(created.json().get("missed").asString()).isEqualTo("skip");

      await().atMost(Duration.ofSeconds(15)).until(() -> receiver.requests.size() >= 3);
      Set<String> slots = new HashSet<>();
      for (Receiver.Request r : receiver.requests) {
        JsonNode body = TestServer.JSON.readTree(r.bodyBytes());
        assertThat(body.get("report").asString()).isEqualTo(name);
        assertThat(slots.add(body.get("slot").asString())).as("one notice per slot").isTrue();
      }
      JsonNode seen = admin.get("/api/v1/recurring/" + name).json();
      assertThat(seen.get("recentSlots").size()).isGreaterThanOrEqualTo(3);
      String notice = seen.get("recentSlots").get(0).get("noticeId").asString();
      assertThat(admin.get("/api/v1/notices/" + notice).status()).isEqualTo(200);

      assertThat(admin.post("/api/v1/recurring/" + name + "/pause").json().get("paused").asBoolean()).isTrue();
      int fired = admin.get("/api/v1/recurring/" + name).json().get("recentSlots").size();
      await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(() ->
          admin.get("/api/v1/recurring/" + name).json().get("recentSlots").size() == fired);
      assertThat(admin.get("/api/v1/recurring").json().get("items")).extracting(i -> i.get("name").asString())
          .contains(name);
      assertThat(admin.delete("/api/v1/recurring/" + name).status()).isEqualTo(204);
      assertThat(admin.get("/api/v1/recurring/" + name).status()).isEqualTo(404);
    }
  }

  @Test
  void refusalsNameTheFieldAndWriteNothing() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String def = definition(receiver);
      String[][] cases = {
          {"{\"name\": \"r1\", \"definition\": \"" + def + "\", \"cron\": \"0 25 * * *\"}", "cron"},
          {"{\"name\": \"r1\", \"definition\": \"" + def + "\", \"cron\": \"0 6 * * *\", \"every\": \"1h\"}", "every"},
          {"{\"name\": \"r1\", \"definition\": \"" + def + "\", \"cron\": \"0 6 * * *\", \"zone\": \"Mars/Base\"}", "zone"},
          {"{\"name\": \"r1\", \"definition\": \"no-such\", \"every\": \"1h\"}", "definition"},
          {"{\"name\": \"r1\", \"definition\": \"" + def + "\", \"every\": \"1h\", \"missed\": \"sometimes\"}", "missed"},
          {"{\"name\": \"r1\", \"definition\": \"" + def + "\"}", "cron"},
          {"{\"name\": \"r 1\", \"definition\": \"" + def + "\", \"every\": \"1h\"}", "name"}};
      for (String[] c : cases) {
        TestServer.Resp r = admin.post("/api/v1/recurring", c[0]);
        assertThat(r.status()).as(c[0] + " -> " + r).isEqualTo(400);
        assertThat(r.json().get("field").asString()).as(c[0] + " -> " + r).isEqualTo(c[1]);
      }
      assertThat(admin.get("/api/v1/recurring/r1").status()).isEqualTo(404);
      TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\": \"" + unique("c") + "\", \"role\": \"client\"}");
      TestServer.Api client = server.as(made.json().get("token").asString());
      assertThat(client.post("/api/v1/recurring", "{\"name\": \"r1\", \"definition\": \"" + def
          + "\", \"every\": \"1h\"}").status()).isEqualTo(403);
    }
  }

  @Test
  void aTenantsSchedulesAndTheirNoticesAreItsOwn() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String tenant = unique("rec").toLowerCase(java.util.Locale.ROOT);
      assertThat(admin.post("/api/v1/tenants", "{\"id\": \"" + tenant + "\"}").status()).isEqualTo(201);
      TestServer.Api tenantAdmin = server.as(admin.post("/api/v1/tokens", "{\"name\": \"" + unique("a")
          + "\", \"role\": \"admin\", \"tenant\": \"" + tenant + "\"}").json().get("token").asString());
      String def = tenant + ".tick";
      assertThat(tenantAdmin.post("/api/v1/definitions", "{\"name\": \"" + def + "\", \"target\": \""
          + receiver.url("/t") + "\"}").status()).isEqualTo(201);
      String defaults = definition(receiver);
      assertThat(tenantAdmin.post("/api/v1/recurring", "{\"name\": \"t\", \"definition\": \"" + defaults
          + "\", \"every\": \"1s\"}").json().get("field").asString()).as("not a definition it sees").isEqualTo("definition");
      assertThat(tenantAdmin.post("/api/v1/recurring", "{\"name\": \"t\", \"definition\": \"" + def
          + "\", \"every\": \"1s\"}").status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(15)).until(() ->
          tenantAdmin.get("/api/v1/recurring/t").json().get("recentSlots").size() >= 1);
      String notice = tenantAdmin.get("/api/v1/recurring/t").json().get("recentSlots").get(0).get("noticeId")
          .asString();
      assertThat(tenantAdmin.get("/api/v1/notices/" + notice).status()).as("the tenant's notice").isEqualTo(200);
      assertThat(admin.get("/api/v1/recurring/t").status()).as("the default tenant has no schedule t")
          .isEqualTo(404);
      assertThat(tenantAdmin.delete("/api/v1/recurring/t").status()).isEqualTo(204);
    }
  }
}
