package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Tenants cannot see or touch each other's things, through any route: several tenants (and the
 * default one) with admin and client tokens, their definitions, tokens and notices; then random
 * operations by random callers on random ids, theirs and others'. Every answer about another
 * tenant's thing is exactly the answer about a missing one, and changes nothing (checked before and
 * after through an operator's token); every list holds the caller's tenant's things only; each
 * tenant's receiver gets its tenant's notices only. The seed is in every failure message; rerun
 * with {@code -Dtenants.isolation.seed=<seed>}.
 */
class TenantIsolationTest extends ServerTest {
  private static final int OPERATIONS = 300;

  /** A caller: a token and the tenant it acts for. */
  record Actor(String tenant, String token, boolean admin, TestServer.Api api) {}

  static final List<String> tenants = new ArrayList<>();
  static final List<Actor> actors = new ArrayList<>();
  static final Map<String, String> noticeTenant = new HashMap<>();
  static final Map<String, String> definitionTenant = new HashMap<>();
  static final Map<String, String> tokenTenant = new HashMap<>();
  static final Map<String, Receiver> receivers = new HashMap<>();
  /** Notices of the granted definition: they go to its (the default tenant's) receiver. */
  static final Set<String> grantedNotices = new HashSet<>();
  static String granted;

  @BeforeAll
  static void tenantsWithTheirThings() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 6);
    tenants.add(Tenants.DEFAULT);
    for (int i = 0; i < 3; i++) {
      String id = "iso" + run + i;
      TestServer.Resp t = admin.post("/api/v1/tenants", "{\"id\":\"" + id + "\"}");
      assertThat(t.status()).as(t.toString()).isEqualTo(201);
      tenants.add(id);
    }
    for (String t : tenants) {
      Receiver r = new Receiver().otherwise(Receiver.Response.ok("ok"));
      receivers.put(t, r);
      actors.add(actor(t, "admin"));
      actors.add(actor(t, "client"));
      actors.add(actor(t, "client"));
      Actor tenantAdmin = actors.get(actors.size() - 3);
      String def = (t.equals(Tenants.DEFAULT) ? "iso-" + run : t + ".hook");
      TestServer.Resp d = tenantAdmin.api().post("/api/v1/definitions", "{\"name\":\"" + def + "\",\"target\":\""
          + r.url("/" + t) + "\",\"retry\":\"1h\",\"maxAttempts\":3}");
      assertThat(d.status()).as(d.toString()).isEqualTo(201);
      definitionTenant.put(def, t);
    }
    granted = "iso-" + run;
    String first = tenants.get(1);
    assertThat(admin.put("/api/v1/tenants/" + first + "/grants/" + granted, "").status()).isEqualTo(200);

    for (Actor a : actors) {
      if (a.admin()) {
        continue;
      }
      String own = ownDefinition(a.tenant());
      String items = String.join(",",
          "{\"definition\":\"" + own + "\",\"payload\":{\"t\":\"" + a.tenant() + "\"},\"delay\":\"1h\","
              + "\"idempotencyKey\":\"shared-key\"}",
          "{\"definition\":\"" + own + "\",\"payload\":[1,2],\"delay\":\"1h\"}",
          "{\"definition\":\"" + own + "\",\"payload\":\"now\"}",
          "{\"callbackUrl\":\"" + receivers.get(a.tenant()).url("/direct") + "\",\"payload\":3,\"delay\":\"1h\","
              + "\"idempotencyKey\":\"shared-direct\"}");
      if (a.tenant().equals(first)) {
        items += ",{\"definition\":\"" + granted + "\",\"payload\":4,\"delay\":\"1h\",\"idempotencyKey\":\"shared-key\"}";
      }
      TestServer.Resp r = a.api().post("/api/v1/notices", "{\"notices\":[" + items + "]}");
      assertThat(r.status()).as(r.toString()).isIn(200, 201);
      for (JsonNode n : r.json().get("notices")) {
        String id = n.get("id").asString();
        if (a.tenant().equals(first) && n.get("index").asInt() == 4) {
          grantedNotices.add(id);
        }
        String before = noticeTenant.putIfAbsent(id, a.tenant());
        assertThat(before).as("an idempotency key of tenant %s returned %s's notice", a.tenant(), before)
            .isIn(null, a.tenant());
      }
    }
    // each tenant's notices by the same keys are its own: none was returned to another tenant
    assertThat(new HashSet<>(noticeTenant.values())).containsExactlyInAnyOrderElementsOf(tenants);
    noticeTenant.keySet().forEach(TenantIsolationTest::settle);
  }

  /** Waits until the notice is not about to change by itself (due now, or being delivered). */
  private static void settle(String id) {
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(() -> {
      JsonNode n = notice(id);
      String status = n.get("status").asString();
      return !status.equals("IN_FLIGHT") && !(status.equals("PENDING") || status.equals("FAILED"))
          || java.time.Instant.parse(n.get("nextAttemptAt").asString()).isAfter(java.time.Instant.now().plusSeconds(5));
    });
  }

  private static Actor actor(String tenant, String role) {
    TestServer.Resp t = admin.post("/api/v1/tokens", "{\"name\":\"iso " + role + "\",\"role\":\"" + role
        + "\",\"tenant\":\"" + tenant + "\"}");
    assertThat(t.status()).as(t.toString()).isEqualTo(201);
    tokenTenant.put(t.json().get("id").asString(), tenant);
    String token = t.json().get("token").asString();
    return new Actor(tenant, token, role.equals("admin"), server.as(token));
  }

  private static String ownDefinition(String tenant) {
    return definitionTenant.entrySet().stream().filter(e -> e.getValue().equals(tenant)).findFirst().orElseThrow()
        .getKey();
  }

  @AfterAll
  static void stopReceivers() {
    receivers.values().forEach(Receiver::close);
  }

  @Test
  void noAnswerAndNoSideEffectEverCrossesATenant() {
    long seed = Long.getLong("tenants.isolation.seed", System.nanoTime());
    Random random = new Random(seed);
    List<String> notices = new ArrayList<>(noticeTenant.keySet());
    List<String> definitions = new ArrayList<>(definitionTenant.keySet());
    List<String> tokenIds = new ArrayList<>(tokenTenant.keySet());
    for (int step = 0; step < OPERATIONS; step++) {
      Actor a = actors.get(random.nextInt(actors.size()));
      String id = notices.get(random.nextInt(notices.size()));
      String def = definitions.get(random.nextInt(definitions.size()));
      String tokenId = tokenIds.get(random.nextInt(tokenIds.size()));
      int op = random.nextInt(16);
      String what = "seed " + seed + ", step " + step + ", op " + op + " by " + a.tenant() + (a.admin() ? " admin" : "")
          + " on notice " + id + " of " + noticeTenant.get(id) + ", definition " + def + ", token " + tokenId;
      boolean mine = noticeTenant.get(id).equals(a.tenant());
      JsonNode before = notice(id);
      switch (op) {
        case 0 -> expect(a.api().get("/api/v1/notices/" + id), mine, 200, what);
        case 1 -> expectItem(a.api().post("/api/v1/notices/lookup", "{\"ids\":[\"" + id + "\"],\"attemptLog\":true}"),
            mine, what);
        case 2 -> expect(a.api().post("/api/v1/notices/" + id + "/cancel"), mine, 200, what);
        case 3 -> expectItem(a.api().post("/api/v1/notices/cancel", "{\"ids\":[\"" + id + "\"]}"), mine, what);
        case 4 -> expect(a.api().post("/api/v1/notices/" + id + "/resend"), mine, 200, what);
        case 5 -> expect(a.api().post("/api/v1/notices/" + id + "/confirm"), mine, 409, what);
        case 6 -> expectItem(a.api().patch("/api/v1/notices", "{\"notices\":[{\"id\":\"" + id
            + "\",\"delay\":\"2h\",\"payload\":{\"moved\":true}}]}"), mine, what);
        case 7 -> expectItem(a.api().patch("/api/v1/notices", "{\"notices\":[{\"id\":\"" + id
            + "\",\"callbackUrl\":\"" + receivers.get(a.tenant()).url("/stolen") + "\"}]}"), mine, what);
        case 8 -> searchesShowOnlyTheirOwn(a, def, what);
        case 9 -> createWithDefinition(a, def, what);
        case 10 -> definitionRoutes(a, def, what);
        case 11 -> tokenRoutes(a, tokenId, what);
        case 12 -> recover(a, def, what);
        case 13 -> listsShowOnlyTheirOwn(a, what);
        case 14 -> expect(a.api().get("/api/v1/notices/" + UUID.randomUUID()), false, 200, what);
        default -> expectItem(a.api().post("/api/v1/notices/lookup", "{\"ids\":[\"" + id + "\",\"" + UUID.randomUUID()
            + "\"]}"), mine, what);
      }
      if (!mine) {
        assertThat(state(notice(id))).as("another tenant's notice unchanged; " + what).isEqualTo(state(before));
      } else {
        settle(id); // a resend makes it due now: let it go before others look at it
      }
    }
    // every request each tenant's receiver got was for a notice of that tenant
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> receivers.forEach((tenant, r) ->
        assertThat(r.requests).allSatisfy(req -> assertThat(tenant.equals(noticeTenant.get(req.header("webhook-id")))
            || (tenant.equals(Tenants.DEFAULT) && grantedNotices.contains(req.header("webhook-id"))))
            .as("seed " + seed + ": receiver of " + tenant + " got " + req.header("webhook-id")).isTrue())));
  }

  @Test
  void consoleUsersOfATenantSeeAndChangeItsNoticesOnly() {
    String tenant = tenants.get(2);
    String other = noticeTenant.entrySet().stream().filter(e -> !e.getValue().equals(tenant)).findFirst()
        .orElseThrow().getKey();
    String own = noticeTenant.entrySet().stream().filter(e -> e.getValue().equals(tenant)).findFirst()
        .orElseThrow().getKey();
    dev.herald.server.console.ConsoleUsers users =
        server.context.getBean(dev.herald.server.console.ConsoleUsers.class);
    String name = unique("tenant-op");
    users.create(name, ConsoleAccessTest.PASSWORD, dev.herald.server.console.ConsoleRole.OPERATOR, tenant, "test");
    ConsoleSession s = new ConsoleSession(server);
    s.login(name, ConsoleAccessTest.PASSWORD);

    String list = s.get("/console/notices?page=0").body();
    noticeTenant.forEach((id, t) -> {
      if (!t.equals(tenant)) {
        assertThat(list).as("lists another tenant's notice").doesNotContain(id);
      }
    });
    assertThat(s.get("/console/notices/" + own).statusCode()).isEqualTo(200);
    assertThat(s.get("/console/notices/" + other).statusCode()).isEqualTo(404);
    assertThat(s.get("/console/notices?id=" + other).body()).doesNotContain("data-id=\"" + other);
    String definitions = s.get("/console/definitions").body();
    definitionTenant.forEach((d, t) -> assertThat(definitions.contains(">" + d + "<")).as(d).isEqualTo(t.equals(tenant)));

    JsonNode before = notice(other);
    String page = s.get("/console/notices/" + own).body();
    s.post("/console/notices/" + other + "/cancel", "_csrf=" + ConsoleSession.csrf(page));
    s.post("/console/notices/" + other + "/fire-time", "fireAt=2031-01-01T00:00:00Z&_csrf=" + ConsoleSession.csrf(page));
    assertThat(state(notice(other))).as("another tenant's notice unchanged").isEqualTo(state(before));
    String bulk = s.get("/console/notices/bulk?action=cancel").body();
    assertThat(bulk).as("a bulk action counts the tenant's notices only")
        .contains("id=\"count\">" + noticeTenant.values().stream().filter(tenant::equals).count() + "<");
  }

  /** The state an operation on the notice could change. */
  private static String state(JsonNode n) {
    return n.get("status").asString() + " " + n.get("updatedAt").asString() + " " + n.get("fireAt").asString() + " "
        + n.get("payload") + " " + n.get("callbackUrl") + " " + n.get("attempts");
  }

  /** One notice route: the caller's own notice gets an answer of it; another's, the answer of a missing one. */
  private static void expect(TestServer.Resp r, boolean mine, int okStatus, String what) {
    if (mine) {
      assertThat(r.status()).as(what + ": " + r).isIn(okStatus, 200, 409);
      return;
    }
    assertThat(r.status()).as(what + ": " + r).isEqualTo(404);
    assertThat(r.error()).isEqualTo("not_found");
    assertThat(r.json().get("detail").asString()).as(what).matches("notice [0-9a-f-]{36} not found");
  }

  /** A batch route: the item of another tenant's notice reads as a missing one's. */
  private static void expectItem(TestServer.Resp r, boolean mine, String what) {
    assertThat(r.status()).as(what + ": " + r).isEqualTo(200);
    JsonNode item = r.json().get("results").get(0);
    if (mine) {
      assertThat(item.get("status").asInt()).as(what + ": " + r).isIn(200, 409);
      return;
    }
    assertThat(item.get("status").asInt()).as(what + ": " + r).isEqualTo(404);
    assertThat(item.get("error").get("reason").asString()).as(what)
        .isEqualTo("notice " + item.get("id").asString() + " not found");
    assertThat(item.has("notice")).isFalse();
  }

  private static void searchesShowOnlyTheirOwn(Actor a, String def, String what) {
    TestServer.Resp all = a.api().get("/api/v1/notices?limit=1000");
    assertThat(all.status()).as(what).isEqualTo(200);
    for (JsonNode n : all.json().get("items")) {
      String owner = noticeTenant.get(n.get("id").asString());
      // notices of other tests on the shared server are the default tenant's
      assertThat(owner == null ? Tenants.DEFAULT : owner).as(what + ": listed " + n.get("id")).isEqualTo(a.tenant());
    }
    TestServer.Resp ofDef = a.api().get("/api/v1/notices?limit=1000&definition=" + def);
    for (JsonNode n : ofDef.json().get("items")) {
      assertThat(noticeTenant.get(n.get("id").asString())).as(what).isEqualTo(a.tenant());
    }
  }

  private static boolean sees(Actor a, String def) {
    String owner = definitionTenant.get(def);
    return owner.equals(a.tenant()) || (def.equals(granted) && a.tenant().equals(tenants.get(1)));
  }

  private static void createWithDefinition(Actor a, String def, String what) {
    TestServer.Resp r = a.api().post("/api/v1/notices", "{\"notices\":[{\"definition\":\"" + def
        + "\",\"payload\":{},\"delay\":\"1h\",\"idempotencyKey\":\"shared-key\"}]}");
    if (sees(a, def)) {
      assertThat(r.status()).as(what + ": " + r).isIn(200, 201);
      String id = r.json().get("ids").get(0).asString();
      assertThat(noticeTenant.putIfAbsent(id, a.tenant())).as(what + ": the key returned " + id).isIn(null, a.tenant());
      if (def.equals(granted)) {
        grantedNotices.add(id);
      }
      return;
    }
    TestServer.Resp missing = a.api().post("/api/v1/notices", "{\"notices\":[{\"definition\":\"no-such-" + def
        + "\",\"payload\":{}}]}");
    assertThat(r.status()).as(what + ": " + r).isEqualTo(400);
    assertThat(r.field()).isEqualTo("notices[0].definition");
    assertThat(r.json().get("reason").asString()).as(what)
        .isEqualTo(missing.json().get("reason").asString().replace("no-such-" + def, def));
  }

  private static void definitionRoutes(Actor a, String def, String what) {
    TestServer.Resp get = a.api().get("/api/v1/definitions/" + def);
    if (definitionTenant.get(def).equals(a.tenant())) {
      assertThat(get.status()).as(what).isEqualTo(200);
      return; // its own: changing it is the tenant's business
    }
    TestServer.Resp before = admin.get("/api/v1/definitions/" + def);
    TestServer.Resp put = a.api().put("/api/v1/definitions/" + def, "{\"target\":\"https://stolen.example/\"}");
    TestServer.Resp delete = a.api().delete("/api/v1/definitions/" + def);
    assertThat(admin.get("/api/v1/definitions/" + def).text()).as(what).isEqualTo(before.text());
    if (sees(a, def)) { // granted: used, not changed
      assertThat(get.status()).as(what).isEqualTo(200);
      assertThat(List.of(put.status(), delete.status())).as(what).containsOnly(403);
      return;
    }
    for (TestServer.Resp r : List.of(get, put, delete)) {
      assertThat(r.status()).as(what + ": " + r).isIn(404, 403);
      if (r.status() == 404) {
        assertThat(r.json().get("detail").asString()).isEqualTo("no definition named '" + def + "'");
      } else {
        assertThat(a.admin()).as("403 only for a client token on an admin route; " + what).isFalse();
      }
    }
  }

  private static void tokenRoutes(Actor a, String tokenId, String what) {
    TestServer.Resp list = a.api().get("/api/v1/tokens");
    if (!a.admin()) {
      assertThat(list.status()).as(what).isEqualTo(403);
      return;
    }
    for (JsonNode t : list.json().get("items")) {
      assertThat(t.get("tenant").asString()).as(what).isEqualTo(a.tenant());
    }
    if (!tokenTenant.get(tokenId).equals(a.tenant())) {
      TestServer.Resp revoke = a.api().delete("/api/v1/tokens/" + tokenId);
      assertThat(revoke.status()).as(what + ": " + revoke).isEqualTo(404);
      assertThat(revoke.json().get("detail").asString()).isEqualTo("no API token with id " + tokenId);
      assertThat(admin.get("/api/v1/tokens").json().get("items").valueStream()
          .filter(t -> t.get("id").asString().equals(tokenId)).findFirst().orElseThrow().get("active").asBoolean())
          .as(what).isTrue();
    }
  }

  private static void recover(Actor a, String def, String what) {
    TestServer.Resp r = a.api().post("/api/v1/notices/recover", "{\"definition\":\"" + def
        + "\",\"from\":\"2020-01-01T00:00:00Z\"}");
    if (sees(a, def)) {
      assertThat(r.status()).as(what + ": " + r).isEqualTo(200);
    } else {
      assertThat(r.status()).as(what + ": " + r).isEqualTo(400);
      assertThat(r.json().get("reason").asString()).isEqualTo("no definition named '" + def + "'");
    }
  }

  private static void listsShowOnlyTheirOwn(Actor a, String what) {
    for (JsonNode d : a.api().get("/api/v1/definitions").json().get("items")) {
      String name = d.get("name").asString();
      String owner = definitionTenant.get(name);
      if (owner != null) {
        assertThat(sees(a, name)).as(what + ": lists " + name).isTrue();
      } else if (!a.tenant().equals(Tenants.DEFAULT)) {
        assertThat(name).as(what + ": a tenant sees the built-in callback besides its own and granted ones")
            .isEqualTo("callback");
      }
    }
    for (JsonNode t : a.api().get("/api/v1/tenants").json().get("items")) {
      assertThat(t.get("id").asString()).as(what).isEqualTo(a.tenant());
    }
    Set<String> others = new HashSet<>();
    receivers.forEach((t, r) -> {
      if (!t.equals(a.tenant()) && !(t.equals(Tenants.DEFAULT) && sees(a, granted))) {
        others.add(dev.herald.channel.http.HttpChannel.endpointOf(r.url("/")));
      }
    });
    for (JsonNode e : a.api().get("/api/v1/endpoints").json().get("items")) {
      assertThat(others).as(what + ": lists endpoint " + e.get("endpoint")).doesNotContain(e.get("endpoint").asString());
    }
    if (a.admin()) {
      TestServer.Resp audit = a.api().get("/api/v1/audit?limit=1000");
      assertThat(audit.status()).as(what + ": " + audit).isEqualTo(200);
      for (JsonNode e : audit.json().get("items")) {
        assertThat(e.get("tenant").asString()).as(what + ": audit " + e).isEqualTo(a.tenant());
      }
    }
  }
}
