package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.server.console.ConsoleRole;
import dev.herald.server.console.ConsoleUsers;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The console as an attacker would try it, over HTTP: sessions that outlive a user's rights, password
 * guessing, weak passwords, hand-made URLs, and the actuator. One server of its own (login throttling
 * counts per address, and every test here is 127.0.0.1), with the whole actuator exposed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleSecurityTest {
  static final String STRONG = "copper-violin-harbor-58";
  static final String STRONG_2 = "tundra-mosaic-lantern-91";

  TestServer server;
  ConsoleUsers users;

  @BeforeAll
  void start() {
    server = TestServer.start(TestServer.tempDir(), "--herald.server.console.admin-password=" + STRONG,
        "--herald.server.console.login-delay=10ms", "--herald.server.console.login-lock-after=5",
        "--management.endpoints.web.exposure.include=*");
    users = server.context.getBean(ConsoleUsers.class);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private ConsoleSession login(String user, String password) {
    ConsoleSession s = new ConsoleSession(server);
    assertThat(s.login(user, password)).as("login of " + user).endsWith("/console");
    return s;
  }

  private static String form(String... pairs) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < pairs.length; i += 2) {
      b.append(b.isEmpty() ? "" : "&").append(pairs[i]).append('=')
          .append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
    }
    return b.toString();
  }

  private static String csrf(ConsoleSession s, String page) {
    return ConsoleSession.csrf(s.get(page).body());
  }

  @Test
  void aDemotedOrDisabledUsersSessionsEndAtOnce() {
    users.create("dana", STRONG, ConsoleRole.ADMIN, "test");
    users.create("erin", STRONG, ConsoleRole.OPERATOR, "test");
    ConsoleSession dana = login("dana", STRONG);
    ConsoleSession erin = login("erin", STRONG);
    assertThat(dana.get("/console/admin/tokens").statusCode()).isEqualTo(200);
    String danaCsrf = csrf(dana, "/console/admin/tokens");
    int tokensBefore = server.context.getBean(ApiTokens.class).list().size();

    ConsoleSession boss = login("admin", STRONG);
    HttpResponse<String> demoted = boss.post("/console/admin/users/dana", form("role", "viewer", "enabled", "true",
        "_csrf", csrf(boss, "/console/admin/users")));
    assertThat(demoted.statusCode()).isEqualTo(302);

    HttpResponse<String> made = dana.post("/console/admin/tokens", form("name", "backdoor", "role", "admin",
        "_csrf", danaCsrf));
    assertThat(made.headers().firstValue("location").orElse("")).as("the session ended").endsWith("/console/login?expired");
    assertThat(server.context.getBean(ApiTokens.class).list()).as("no token made").hasSize(tokensBefore);
    assertThat(dana.get("/console/notices").headers().firstValue("location").orElse("")).endsWith("/console/login");
    ConsoleSession again = login("dana", STRONG);
    assertThat(again.get("/console/admin/tokens").statusCode()).as("a viewer now").isEqualTo(403);

    boss.post("/console/admin/users/erin", form("role", "operator", "_csrf", csrf(boss, "/console/admin/users")));
    assertThat(users.find("erin").orElseThrow().enabled()).isFalse();
    assertThat(erin.get("/console/notices").headers().firstValue("location").orElse("")).endsWith("/console/login?expired");
    assertThat(new ConsoleSession(server).login("erin", STRONG)).as("disabled: no login").contains("error");
    assertThat(audit("user.update")).anySatisfy(e -> assertThat(e).contains("dana").contains("user admin"));
  }

  @Test
  void passwordGuessingIsThrottledThenRefusedWith429AndLogged() {
    users.create("frank", STRONG, ConsoleRole.VIEWER, "test");
    for (int i = 0; i < 5; i++) {
      assertThat(new ConsoleSession(server).login("frank", "wrong-guess-" + i)).endsWith("/console/login?error");
    }
    ConsoleSession guesser = new ConsoleSession(server);
    String token = csrf(guesser, "/console/login");
    HttpResponse<String> locked = guesser.post("/console/login", form("username", "frank", "password", STRONG,
        "_csrf", token));
    assertThat(locked.statusCode()).as("locked out, even with the right password").isEqualTo(429);
    assertThat(Long.parseLong(locked.headers().firstValue("retry-after").orElseThrow())).isGreaterThan(60);
    assertThat(locked.body()).contains("Too many failed logins");
    assertThat(audit("console.login-failed")).filteredOn(e -> e.contains("frank")).hasSizeGreaterThanOrEqualTo(5)
        .allSatisfy(e -> assertThat(e).contains("127.0.0.1"));
  }

  @Test
  void weakPasswordsAreRefusedAndUsersChangeTheirOwnAndAdminsResetOthers() {
    ConsoleSession boss = login("admin", STRONG);
    for (String weak : List.of("aaaaaaaaaaaa", "Password2024!", "grace-is-the-best", "qwertyuiop12", "P@ssw0rd1234",
        "short")) {
      HttpResponse<String> r = boss.post("/console/admin/users", form("username", "grace", "password", weak,
          "role", "viewer", "_csrf", csrf(boss, "/console/admin/users")));
      assertThat(r.statusCode()).isEqualTo(302);
      assertThat(users.find("grace")).as("refused: " + weak).isEmpty();
    }
    assertThat(boss.get("/console/admin/users").body()).doesNotContain("grace");
    boss.post("/console/admin/users", form("username", "grace", "password", STRONG, "role", "viewer",
        "_csrf", csrf(boss, "/console/admin/users")));
    assertThat(users.find("grace")).isPresent();

    ConsoleSession grace = login("grace", STRONG);
    ConsoleSession graceElsewhere = login("grace", STRONG);
    String page = "/console/account";
    grace.post(page + "/password", form("current", "not-mine-at-all", "password", STRONG_2, "again", STRONG_2,
        "_csrf", csrf(grace, page)));
    assertThat(users.passwordMatches("grace", STRONG)).as("wrong current password: unchanged").isTrue();
    grace.post(page + "/password", form("current", STRONG, "password", "aaaaaaaaaaaa", "again", "aaaaaaaaaaaa",
        "_csrf", csrf(grace, page)));
    assertThat(users.passwordMatches("grace", STRONG)).as("weak: unchanged").isTrue();
    HttpResponse<String> changed = grace.post(page + "/password", form("current", STRONG, "password", STRONG_2,
        "again", STRONG_2, "_csrf", csrf(grace, page)));
    assertThat(changed.statusCode()).isEqualTo(302);
    assertThat(users.passwordMatches("grace", STRONG_2)).isTrue();
    assertThat(grace.get("/console/notices").statusCode()).as("this session goes on").isEqualTo(200);
    assertThat(graceElsewhere.get("/console/notices").headers().firstValue("location").orElse(""))
        .as("the other one ends").endsWith("/console/login?expired");

    boss.post("/console/admin/users/grace/password", form("password", STRONG, "_csrf", csrf(boss, "/console/admin/users")));
    assertThat(users.passwordMatches("grace", STRONG)).isTrue();
    assertThat(grace.get("/console/notices").headers().firstValue("location").orElse(""))
        .as("a reset ends the user's sessions").endsWith("/console/login?expired");
    assertThat(audit("user.password-reset")).anySatisfy(e -> assertThat(e).contains("grace"));
  }

  @Test
  void pagesCarryAStrictContentSecurityPolicyAndNoReferrer() {
    HttpResponse<String> page = new ConsoleSession(server).get("/console/login");
    assertThat(page.headers().firstValue("content-security-policy").orElse(""))
        .contains("default-src 'self'").contains("script-src 'self'").contains("frame-ancestors 'none'")
        .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
    assertThat(page.headers().firstValue("referrer-policy")).hasValue("no-referrer");
    assertThat(page.headers().firstValue("x-frame-options")).hasValue("DENY");
  }

  @Test
  void handMadePagesAndLongFieldsGet400AndErrorsArePagesNotJson() {
    ConsoleSession s = login("admin", STRONG);
    for (String path : List.of("/console/notices?page=100000000", "/console/notices?page=-1",
        "/console/notices?page=abc", "/console/notices?text=" + "x".repeat(201),
        "/console/notices/bulk?action=cancel&page=100000000")) {
      HttpResponse<String> r = s.get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(400);
      assertThat(r.headers().firstValue("content-type").orElse("")).as(path).startsWith("text/html");
      assertThat(r.body()).as(path).contains("<html").doesNotContain("\"type\":\"about:blank\"")
          .doesNotContain("SQL").doesNotContain("Exception");
    }
    assertThat(s.get("/console/notices?page=100000000").body()).contains("page: must be from 0 to 10000");
    HttpResponse<String> missing = s.get("/console/no-such-page");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.headers().firstValue("content-type").orElse("")).startsWith("text/html");
  }

  @Test
  void aUserWithALongNameCreatesTokensWithoutOverflowingTheirAuthor() {
    String name = "u" + "x".repeat(99);
    users.create(name, STRONG, ConsoleRole.ADMIN, "test");
    ConsoleSession s = login(name, STRONG);
    HttpResponse<String> r = s.post("/console/admin/tokens", form("name", "t".repeat(100), "role", "client",
        "_csrf", csrf(s, "/console/admin/tokens")));
    assertThat(r.statusCode()).isEqualTo(302);
    String page = s.get("/console/admin/tokens").body();
    assertThat(page).contains("id=\"new-token\"").doesNotContain("cannot store").doesNotContain("SQL");
    assertThat(server.context.getBean(ApiTokens.class).list()).anySatisfy(t ->
        assertThat(t.createdBy()).isEqualTo("console:" + name));
  }

  @Test
  void theActuatorBeyondHealthAndPrometheusNeedsAConsoleAdmin() {
    TestServer.Api anonymous = server.as(null);
    assertThat(anonymous.get("/actuator/health").status()).isEqualTo(200);
    assertThat(anonymous.get("/actuator/prometheus").status()).isEqualTo(200);
    for (String path : List.of("/actuator/env", "/actuator/loggers", "/actuator/herald", "/actuator/beans",
        "/actuator/configprops", "/actuator/threaddump")) {
      assertThat(anonymous.get(path).status()).as(path).isEqualTo(401);
    }
    assertThat(server.as(server.adminToken()).get("/actuator/env").status()).as("an API token is no console login")
        .isEqualTo(401);
    users.create("hank", STRONG, ConsoleRole.OPERATOR, "test");
    assertThat(login("hank", STRONG).get("/actuator/env").statusCode()).isEqualTo(403);
    assertThat(login("admin", STRONG).get("/actuator/env").statusCode()).isEqualTo(200);
  }

  /** The audit log's entries of an action, as text. */
  private List<String> audit(String action) {
    TestServer.Resp r = server.as(server.adminToken()).get("/api/v1/audit?limit=1000&action=" + action);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    return r.json().get("items").valueStream().map(Object::toString).toList();
  }
}
