package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.server.console.ConsoleRole;
import dev.herald.server.console.ConsoleUsers;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Every operator and admin action is in the audit log with who, when, what and from where, searchable. */
class AuditTest extends ServerTest {

  private static List<JsonNode> entries(String query) {
    TestServer.Resp r = admin.get("/api/v1/audit?limit=1000&" + query);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    return r.json().get("items").valueStream().toList();
  }

  @Test
  void apiAndConsoleActionsAreRecordedAndSearchable() {
    String def = define("audited", "\"target\":\"https://audited.invalid/hook\"");
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\":\"auditor-" + def + "\",\"role\":\"client\"}");
    TestServer.Api client = server.as(made.json().get("token").asString());
    String a = create(client, "{\"definition\":\"" + def + "\",\"payload\":1,\"delay\":\"1h\"}");
    String b = create(client, "{\"definition\":\"" + def + "\",\"payload\":2,\"delay\":\"1h\"}");
    client.patch("/api/v1/notices", "{\"notices\":[{\"id\":\"" + a + "\",\"delay\":\"2h\"}]}");
    client.post("/api/v1/notices/" + a + "/cancel");
    client.post("/api/v1/notices/recover", "{\"definition\":\"" + def + "\",\"from\":\"2020-01-01T00:00:00Z\"}");
    admin.put("/api/v1/definitions/" + def, "{\"target\":\"https://audited.invalid/other\",\"retry\":\"1m\"}");
    admin.post("/api/v1/endpoints/disable", "{\"url\":\"https://audited.invalid/\",\"reason\":\"audit test\"}");

    JsonNode cancel = entries("action=notice.cancel&text=" + a).getFirst();
    assertThat(cancel.get("actor").asString()).isEqualTo("token auditor-" + def + " (client, default)");
    assertThat(cancel.get("target").asString()).isEqualTo(a);
    assertThat(cancel.get("address").asString()).isEqualTo("127.0.0.1");
    assertThat(cancel.get("tenant").asString()).isEqualTo("default");
    assertThat(cancel.get("at").asString()).isNotBlank();
    assertThat(entries("action=notices.edit&text=" + a)).hasSize(1);
    assertThat(entries("action=notices.recover&text=" + def)).hasSize(1);
    assertThat(entries("action=definition.create&text=" + def)).hasSize(1);
    assertThat(entries("action=definition.update&text=" + def).getFirst().get("detail").asString())
        .contains("retry 1m");
    assertThat(entries("action=token.create&text=auditor-" + def)).hasSize(1);
    assertThat(entries("action=endpoint.disable&text=audited.invalid").getFirst().get("detail").asString())
        .isEqualTo("audit test");
    admin.post("/api/v1/endpoints/enable", "{\"url\":\"https://audited.invalid/\"}");
    assertThat(entries("actor=" + java.net.URLEncoder.encode("token auditor-" + def + " (client, default)",
        java.nio.charset.StandardCharsets.UTF_8)).stream().map(e -> e.get("action").asString()))
        .contains("notice.cancel", "notices.edit", "notices.recover");

    // the console: a bulk action, then the console's own page of the log
    ConsoleUsers users = server.context.getBean(ConsoleUsers.class);
    String operator = unique("op");
    users.create(operator, ConsoleAccessTest.PASSWORD, ConsoleRole.OPERATOR, "test");
    String boss = unique("boss");
    users.create(boss, ConsoleAccessTest.PASSWORD, ConsoleRole.ADMIN, "test");
    ConsoleSession s = new ConsoleSession(server);
    s.login(operator, ConsoleAccessTest.PASSWORD);
    String page = s.get("/console/notices/bulk?action=cancel&definition=" + def).body();
    java.util.regex.Matcher selection = java.util.regex.Pattern.compile("name=\"selection\" value=\"([0-9a-f]+)\"")
        .matcher(page);
    assertThat(selection.find()).as("the confirmation page names its selection").isTrue();
    s.post("/console/notices/bulk", "action=cancel&selection=" + selection.group(1) + "&definition=" + def + "&_csrf="
        + ConsoleSession.csrf(page));
    assertThat(notice(b).get("status").asString()).isEqualTo("CANCELLED");
    JsonNode bulk = entries("action=notices.bulk-cancel&text=" + def).getFirst();
    assertThat(bulk.get("actor").asString()).isEqualTo("user " + operator);
    assertThat(bulk.get("detail").asString()).isEqualTo("1 of 2 notice(s) done, 1 refused");

    ConsoleSession admins = new ConsoleSession(server);
    admins.login(boss, ConsoleAccessTest.PASSWORD);
    String log = admins.get("/console/admin/audit?action=notices.bulk-cancel&text=" + def).body();
    assertThat(log).contains("user " + operator).contains("notices.bulk-cancel");
    assertThat(s.get("/console/admin/audit").statusCode()).as("admins only").isEqualTo(403);
  }
}
