package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** API tokens: 401 without a valid one, 403 for a client on admin routes, health and OpenAPI open. */
class AuthTest extends ServerTest {

  @Test
  void everyApiCallWithoutATokenGets401() {
    for (String[] call : List.of(
        new String[] {"GET", "/api/v1/notices"}, new String[] {"POST", "/api/v1/notices"},
        new String[] {"PATCH", "/api/v1/notices"}, new String[] {"GET", "/api/v1/definitions"},
        new String[] {"DELETE", "/api/v1/definitions/callback"}, new String[] {"GET", "/api/v1/tokens"},
        new String[] {"GET", "/api/v1/no-such-route"})) {
      TestServer.Resp r = anonymous.send(call[0], call[1], call[0].equals("GET") ? null : "{}", "application/json");
      assertThat(r.status()).as(call[0] + " " + call[1]).isEqualTo(401);
      assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"herald\"");
      assertThat(r.header("content-type")).startsWith("application/problem+json");
      assertThat(r.error()).isEqualTo("unauthorized");
    }
  }

  @Test
  void pathTricksDoNotOpenTheApi() {
    for (String path : List.of("/x/../api/v1/notices", "/api/v1/openapi.json/../notices", "/api;a=b/v1/notices",
        "/api/v1/notices;x=/api/v1/openapi.json", "/API/v1/notices/../notices")) {
      TestServer.Resp r = anonymous.get(path);
      assertThat(r.status()).as(path + ": " + r).isIn(400, 401, 404);
      assertThat(r.status() == 200).as(path).isFalse();
    }
    assertThat(anonymous.get("/x/../api/v1/notices").status()).isEqualTo(401);
  }

  @Test
  void aWrongTokenGets401() {
    TestServer.Resp wrong = server.as("hrd_thisIsNotAValidTokenAtAll0000000000000000").get("/api/v1/notices");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.header("www-authenticate")).contains("error=\"invalid_token\"");
    assertThat(wrong.json().get("detail").asString()).contains("not valid");
    assertThat(server.as("Basic YWRtaW46YWRtaW4=").get("/api/v1/notices").status()).isEqualTo(401);
    assertThat(server.as("Bearer ").get("/api/v1/notices").status()).isEqualTo(401);
  }

  @Test
  void healthAndTheApiDescriptionStayOpen() {
    TestServer.Resp health = anonymous.get("/actuator/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().get("status").asString()).isEqualTo("UP");
    assertThat(anonymous.get("/api/v1/openapi.json").status()).isEqualTo(200);
    assertThat(anonymous.get("/api/v1/openapi.yaml").status()).isEqualTo(200);
  }

  @Test
  void aClientTokenWorksWithNoticesAndGets403OnAdminRoutes() {
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\": \"shop backend\", \"role\": \"client\"}");
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    String token = made.json().get("token").asString();
    assertThat(token).startsWith("hrd_").hasSize(47);
    TestServer.Api client = server.as(token);

    assertThat(client.get("/api/v1/notices").status()).isEqualTo(200);
    assertThat(client.post("/api/v1/notices",
        "{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"payload\":1,\"delay\":\"1h\"}]}").status())
        .isEqualTo(201);
    assertThat(client.get("/api/v1/definitions").status()).isEqualTo(200);
    assertThat(client.get("/api/v1/definitions/callback").status()).isEqualTo(200);

    List<TestServer.Resp> refused = new ArrayList<>();
    refused.add(client.post("/api/v1/definitions", "{\"name\":\"x\",\"target\":\"https://example.com/\"}"));
    refused.add(client.put("/api/v1/definitions/callback", "{}"));
    refused.add(client.delete("/api/v1/definitions/callback"));
    refused.add(client.get("/api/v1/tokens"));
    refused.add(client.post("/api/v1/tokens", "{\"name\":\"me\",\"role\":\"admin\"}"));
    refused.add(client.delete("/api/v1/tokens/" + made.json().get("id").asString()));
    assertThat(refused).allSatisfy(r -> {
      assertThat(r.status()).as(r.toString()).isEqualTo(403);
      assertThat(r.error()).isEqualTo("forbidden");
      assertThat(r.json().get("detail").asString()).contains("needs an admin token").contains("shop backend");
    });
  }

  @Test
  void anAdminTokenOfOneTenantGets403OnWhatEveryTenantShares() {
    String tenant = "auth" + java.util.UUID.randomUUID().toString().substring(0, 6);
    assertThat(admin.post("/api/v1/tenants", "{\"id\":\"" + tenant + "\"}").status()).isEqualTo(201);
    TestServer.Resp made = admin.post("/api/v1/tokens",
        "{\"name\": \"tenant admin\", \"role\": \"admin\", \"tenant\": \"" + tenant + "\"}");
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    TestServer.Api tenantAdmin = server.as(made.json().get("token").asString());

    assertThat(tenantAdmin.get("/api/v1/tokens").status()).as("its tenant's tokens").isEqualTo(200);
    TestServer.Resp tenants = tenantAdmin.put("/api/v1/tenants/" + tenant, "{\"name\": \"mine\"}");
    assertThat(tenants.status()).as(tenants.toString()).isEqualTo(403);
    assertThat(tenants.json().get("detail").asString()).isEqualTo("PUT /api/v1/tenants/" + tenant
        + " changes tenants: it needs an admin token of every tenant; this one is tenant " + tenant + "'s");
    TestServer.Resp endpoints = tenantAdmin.post("/api/v1/endpoints/disable", "{\"url\": \"https://example.com/\"}");
    assertThat(endpoints.status()).as(endpoints.toString()).isEqualTo(403);
    assertThat(endpoints.json().get("detail").asString()).contains("changes an endpoint every tenant shares");
    assertThat(admin.get("/api/v1/tenants/" + tenant).json().get("name").asString("")).as("unchanged")
        .isNotEqualTo("mine");
  }

  @Test
  void aClientTokenMayNotPauseSchedules() {
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\": \"scheduler\", \"role\": \"client\"}");
    TestServer.Resp r = server.as(made.json().get("token").asString()).post("/api/v1/recurring/any/pause", "");
    assertThat(r.status()).as(r.toString()).isEqualTo(403);
    assertThat(r.json().get("detail").asString())
        .isEqualTo("POST /api/v1/recurring/any/pause needs an admin token; token 'scheduler' has role client");
  }

  @Test
  void tokensAreListedWithoutSecretsStoredHashedAndRevocable() throws Exception {
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\": \"second admin\", \"role\": \"admin\"}");
    String token = made.json().get("token").asString();
    String id = made.json().get("id").asString();
    TestServer.Api second = server.as(token);
    assertThat(second.get("/api/v1/tokens").status()).isEqualTo(200);

    TestServer.Resp list = admin.get("/api/v1/tokens");
    assertThat(list.text()).doesNotContain(token);
    JsonNode listed = null;
    for (JsonNode t : list.json().get("items")) {
      assertThat(t.has("token")).isFalse();
      if (t.get("id").asString().equals(id)) {
        listed = t;
      }
    }
    assertThat(listed).isNotNull();
    assertThat(listed.get("role").asString()).isEqualTo("admin");
    assertThat(listed.get("hint").asString()).isEqualTo(token.substring(0, 8) + "...");
    assertThat(listed.get("active").asBoolean()).isTrue();

    try (Connection c = server.context.getBean(DataSource.class).getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM herald_server_token WHERE id = '" + id + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("token_hash")).isEqualTo(ApiTokens.hash(token)).hasSize(64);
      for (int col = 1; col <= rs.getMetaData().getColumnCount(); col++) {
        assertThat(rs.getString(col)).as(rs.getMetaData().getColumnName(col)).isNotEqualTo(token);
      }
    }

    TestServer.Resp revoked = admin.delete("/api/v1/tokens/" + id);
    assertThat(revoked.status()).isEqualTo(200);
    assertThat(revoked.json().get("active").asBoolean()).isFalse();
    assertThat(second.get("/api/v1/notices").status()).isEqualTo(401);
    assertThat(admin.delete("/api/v1/tokens/no-such-token").status()).isEqualTo(404);

    // The last active admin token cannot be revoked: that would lock every admin out.
    List<String> activeAdmins = new ArrayList<>();
    for (JsonNode t : admin.get("/api/v1/tokens").json().get("items")) {
      // admin tokens of every tenant (other tests make admin tokens of their tenants)
      if (t.get("active").asBoolean() && t.get("role").asString().equals("admin") && t.get("tenant").isNull()) {
        activeAdmins.add(t.get("id").asString());
      }
    }
    assertThat(activeAdmins).hasSize(1);
    TestServer.Resp last = admin.delete("/api/v1/tokens/" + activeAdmins.getFirst());
    assertThat(last.status()).isEqualTo(409);
    assertThat(last.error()).isEqualTo("last_admin_token");
  }
}
