package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.server.console.ConsoleRole;
import dev.herald.server.console.ConsoleUsers;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The console's event pages: where an event went and who took it; endpoints enabled and disabled by admins only. */
class ConsoleEventsTest extends ServerTest {
  private static final ConsoleUsers users = server.context.getBean(ConsoleUsers.class);

  private static ConsoleSession loggedIn(ConsoleRole role) {
    String name = role.name().toLowerCase(java.util.Locale.ROOT) + "-" + UUID.randomUUID().toString().substring(0, 6);
    users.create(name, ConsoleSecurityTest.STRONG, role, "test");
    ConsoleSession s = new ConsoleSession(server);
    assertThat(s.login(name, ConsoleSecurityTest.STRONG)).endsWith("/console");
    return s;
  }

  @Test
  void anEventPageSaysWhereItWentAndWhoTookIt() throws Exception {
    try (Receiver ok = new Receiver(); Receiver down = new Receiver()) {
      down.otherwise(Receiver.Response.status(500));
      String type = unique("parcel.sent");
      assertThat(admin.post("/api/v1/event-types", "{\"name\": \"" + type + "\"}").status()).isEqualTo(201);
      String a = unique("ok");
      String b = unique("down");
      assertThat(admin.post("/api/v1/event-endpoints", "{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"]}"
          .formatted(a, ok.url("/in"), type)).status()).isEqualTo(201);
      assertThat(admin.post("/api/v1/event-endpoints", "{\"id\": \"%s\", \"url\": \"%s\", \"eventTypes\": [\"%s\"],"
          .formatted(b, down.url("/in"), type) + " \"retry\": \"1h\"}").status()).isEqualTo(201);
      String id = admin.post("/api/v1/events", "{\"type\": \"" + type + "\", \"payload\": {\"parcel\": 1}}")
          .json().get("id").asString();
      await().atMost(Duration.ofSeconds(15)).until(() -> admin.get("/api/v1/events/" + id).json().get("taken").asInt() == 1
          && !down.requests.isEmpty());

      ConsoleSession viewer = loggedIn(ConsoleRole.VIEWER);
      String page = viewer.get("/console/events/" + id).body();
      assertThat(page).contains("This event went to 2 endpoints; 1 took it.");
      assertThat(page).contains("data-endpoint=\"" + a + "\"").contains("data-endpoint=\"" + b + "\"").contains("HTTP 500");
      String list = viewer.get("/console/events?type=" + type).body();
      assertThat(list).contains("went to 2 endpoints; 1 took it").contains(id);

      String endpoints = viewer.get("/console/event-endpoints").body();
      assertThat(endpoints).contains("data-endpoint=\"" + a + "\"").doesNotContain("disable-event-endpoint");
      assertThat(viewer.post("/console/event-endpoints/" + a + "/disable", "_csrf=" + ConsoleSession.csrf(endpoints))
          .statusCode()).isEqualTo(403);
      ConsoleSession operator = loggedIn(ConsoleRole.OPERATOR);
      String opPage = operator.get("/console/event-endpoints").body();
      assertThat(operator.post("/console/event-endpoints/" + a + "/disable", "_csrf=" + ConsoleSession.csrf(opPage))
          .statusCode()).as("admins only, as in the API").isEqualTo(403);
      assertThat(admin.get("/api/v1/event-endpoints/" + a).json().get("enabled").asBoolean()).isTrue();

      ConsoleSession adminUser = loggedIn(ConsoleRole.ADMIN);
      String adminPage = adminUser.get("/console/event-endpoints").body();
      assertThat(adminPage).contains("disable-event-endpoint");
      assertThat(adminUser.post("/console/event-endpoints/" + a + "/disable", "_csrf=" + ConsoleSession.csrf(adminPage))
          .statusCode()).isEqualTo(302);
      assertThat(admin.get("/api/v1/event-endpoints/" + a).json().get("enabled").asBoolean()).isFalse();
    }
  }

  @Test
  void recurringSchedulesAreListedAndOperatorsPauseAndResumeThem() throws Exception {
    try (Receiver r = new Receiver()) {
      String def = unique("figures");
      assertThat(admin.post("/api/v1/definitions", "{\"name\": \"" + def + "\", \"target\": \"" + r.url("/f") + "\"}")
          .status()).isEqualTo(201);
      String name = unique("daily");
      assertThat(admin.post("/api/v1/recurring", "{\"name\": \"" + name + "\", \"definition\": \"" + def
          + "\", \"cron\": \"30 6 * * *\", \"zone\": \"Europe/Berlin\"}").status()).isEqualTo(201);

      ConsoleSession viewer = loggedIn(ConsoleRole.VIEWER);
      String page = viewer.get("/console/recurring").body();
      assertThat(page).contains("data-schedule=\"" + name + "\"").contains("30 6 * * * (Europe/Berlin)")
          .doesNotContain("pause-recurring");
      assertThat(viewer.post("/console/recurring/" + name + "/pause", "_csrf=" + ConsoleSession.csrf(page))
          .statusCode()).isEqualTo(403);

      ConsoleSession operator = loggedIn(ConsoleRole.OPERATOR);
      String opPage = operator.get("/console/recurring").body();
      assertThat(opPage).contains("pause-recurring");
      assertThat(operator.post("/console/recurring/" + name + "/pause", "_csrf=" + ConsoleSession.csrf(opPage))
          .statusCode()).isEqualTo(302);
      assertThat(admin.get("/api/v1/recurring/" + name).json().get("paused").asBoolean()).isTrue();
      String paused = operator.get("/console/recurring").body();
      assertThat(paused).contains("resume-recurring");
      assertThat(operator.post("/console/recurring/" + name + "/resume", "_csrf=" + ConsoleSession.csrf(paused))
          .statusCode()).isEqualTo(302);
      assertThat(admin.get("/api/v1/recurring/" + name).json().get("paused").asBoolean()).isFalse();
      assertThat(admin.delete("/api/v1/recurring/" + name).status()).isEqualTo(204);
    }
  }
}
