package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.server.console.ConsoleRole;
import dev.herald.server.console.ConsoleUsers;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Who may do what in the console, over plain HTTP against the shared server. */
class ConsoleAccessTest extends ServerTest {
  private static final ConsoleUsers users = server.context.getBean(ConsoleUsers.class);
  static final String PASSWORD = "kettle-orbit-violet-42";

  private static String user(ConsoleRole role) {
    String name = role.name().toLowerCase(java.util.Locale.ROOT) + "-" + UUID.randomUUID().toString().substring(0, 6);
    users.create(name, PASSWORD, role, "test");
    return name;
  }

  private static ConsoleSession loggedIn(String name) {
    ConsoleSession s = new ConsoleSession(server);
    assertThat(s.login(name, PASSWORD)).endsWith("/console");
    return s;
  }

  @Test
  void pagesNeedALoginAndAWrongPasswordIsRefused() {
    ConsoleSession anonymous = new ConsoleSession(server);
    HttpResponse<String> r = anonymous.get("/console/notices");
    assertThat(r.statusCode()).isEqualTo(302);
    assertThat(r.headers().firstValue("location").orElse("")).endsWith("/console/login");
    String viewer = user(ConsoleRole.VIEWER);
    assertThat(anonymous.login(viewer, "wrong-password-123")).endsWith("/console/login?error");
    assertThat(anonymous.get("/console/notices").statusCode()).isEqualTo(302);
  }

  @Test
  void aViewerSeesNoControlsAndIsRefusedChangesAnOperatorMayMake() {
    String def = define("console", "\"target\":\"https://example.invalid/hook\"");
    String id = create(admin, "{\"definition\":\"" + def + "\",\"payload\":{},\"delay\":\"1h\"}");
    ConsoleSession viewer = loggedIn(user(ConsoleRole.VIEWER));
    String page = viewer.get("/console/notices/" + id).body();
    assertThat(page).doesNotContain("id=\"cancel\"").doesNotContain("id=\"resend\"");
    HttpResponse<String> refused = viewer.post("/console/notices/" + id + "/cancel",
        "_csrf=" + ConsoleSession.csrf(page));
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(notice(id).get("status").asString()).isEqualTo("PENDING");
    assertThat(viewer.post("/console/admin/users", "username=x&password=y&role=admin&_csrf="
        + ConsoleSession.csrf(page)).statusCode()).isEqualTo(403);

    ConsoleSession operator = loggedIn(user(ConsoleRole.OPERATOR));
    String opPage = operator.get("/console/notices/" + id).body();
    assertThat(opPage).contains("id=\"cancel\"");
    assertThat(operator.post("/console/notices/" + id + "/cancel", "").statusCode())
        .as("no CSRF token: refused").isEqualTo(403);
    assertThat(operator.post("/console/notices/" + id + "/cancel", "_csrf=" + ConsoleSession.csrf(opPage))
        .statusCode()).isEqualTo(302);
    assertThat(notice(id).get("status").asString()).isEqualTo("CANCELLED");
    assertThat(operator.get("/console/admin/tokens").statusCode()).as("admins only").isEqualTo(403);
  }

  @Test
  void endpointActionsAreForAdminsOnlyAsInTheApi() {
    String url = "https://console-access-" + UUID.randomUUID().toString().substring(0, 6) + ".invalid/hook";
    String endpoint = dev.herald.channel.http.HttpChannel.endpointOf(url);
    String form = "url=" + java.net.URLEncoder.encode(url, java.nio.charset.StandardCharsets.UTF_8) + "&reason=test";
    for (ConsoleRole role : new ConsoleRole[] {ConsoleRole.VIEWER, ConsoleRole.OPERATOR}) {
      ConsoleSession s = loggedIn(user(role));
      String page = s.get("/console/endpoints").body();
      assertThat(page).doesNotContain("disable-endpoint").doesNotContain("set-rate");
      assertThat(s.post("/console/endpoints/disable", form + "&_csrf=" + ConsoleSession.csrf(page)).statusCode())
          .as(role.name()).isEqualTo(403);
      assertThat(s.post("/console/endpoints/rate", "url=" + url + "&maxRate=1/s&_csrf=" + ConsoleSession.csrf(page))
          .statusCode()).as(role.name()).isEqualTo(403);
    }
    assertThat(disabled(endpoint)).isFalse();

    ConsoleSession admin = loggedIn(user(ConsoleRole.ADMIN));
    String page = admin.get("/console/endpoints").body();
    assertThat(admin.post("/console/endpoints/disable", form).statusCode()).as("no CSRF token").isEqualTo(403);
    assertThat(admin.post("/console/endpoints/disable", form + "&_csrf=" + ConsoleSession.csrf(page)).statusCode())
        .isEqualTo(302);
    assertThat(disabled(endpoint)).isTrue();
    String after = admin.get("/console/endpoints").body();
    assertThat(after).contains("enable-endpoint").contains("disabled by an operator: test");
    assertThat(admin.post("/console/endpoints/enable", "url=" + url + "&_csrf=" + ConsoleSession.csrf(after))
        .statusCode()).isEqualTo(302);
    assertThat(disabled(endpoint)).isFalse();
  }

  @Test
  void aConsolePathThatDeclaresNoPermissionIsRefusedEvenToAnAdminOfEveryTenant() {
    ConsoleSession boss = loggedIn(user(ConsoleRole.ADMIN));
    String page = boss.get("/console/notices").body();
    assertThat(boss.get("/console/admin/tokens").statusCode()).isEqualTo(200);
    assertThat(boss.get("/console/admin/audit").statusCode()).isEqualTo(200);
    assertThat(boss.get("/console/admin/no-such-page").statusCode()).isEqualTo(403);
    assertThat(boss.post("/console/no-such-action", "_csrf=" + ConsoleSession.csrf(page)).statusCode())
        .isEqualTo(403);
  }

  private static boolean disabled(String endpoint) {
    for (var e : admin.get("/api/v1/endpoints").json().get("items")) {
      if (e.get("endpoint").asString().equals(endpoint)) {
        return e.get("disabled").asBoolean();
      }
    }
    return false;
  }

  @Test
  void badUserInputNamesTheFieldAndChangesNothing() {
    long before = users.count();
    assertThatThrownBy(() -> users.create("short", "too-short", ConsoleRole.VIEWER, "test"))
        .hasMessageStartingWith("password:");
    assertThatThrownBy(() -> users.create("white space", "long-enough-password", ConsoleRole.VIEWER, "test"))
        .hasMessageStartingWith("username:");
    assertThat(users.count()).isEqualTo(before);
  }

  @Test
  void theApiStaysStateless() {
    TestServer.Resp r = admin.get("/api/v1/definitions");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.headers().allValues("set-cookie")).isEmpty();
  }
}
