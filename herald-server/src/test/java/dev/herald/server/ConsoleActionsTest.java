package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.server.console.ConsoleRole;
import dev.herald.server.console.ConsoleUsers;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What the console's actions do and say: exactly what was confirmed, in words that stay true. */
class ConsoleActionsTest extends ServerTest {
  private static final Pattern SELECTION = Pattern.compile("name=\"selection\" value=\"([0-9a-f]+)\"");

  private static ConsoleSession operator() {
    String name = "operator-" + UUID.randomUUID().toString().substring(0, 6);
    server.context.getBean(ConsoleUsers.class).create(name, ConsoleAccessTest.PASSWORD, ConsoleRole.OPERATOR, "test");
    ConsoleSession s = new ConsoleSession(server);
    assertThat(s.login(name, ConsoleAccessTest.PASSWORD)).endsWith("/console");
    return s;
  }

  /** The page a redirect leads to, where the action's message shows. */
  private static String followed(ConsoleSession s, HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
    String location = r.headers().firstValue("location").orElseThrow();
    return s.get(location.replaceFirst("^https?://[^/]+", "")).body();
  }

  @Test
  void aBulkActionTouchesExactlyTheNoticesItsConfirmationCountedAndOnlyOnce() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.otherwise(Receiver.Response.status(400)); // failed for good, the endpoint's circuit stays closed
      String def = define("bulk", "\"target\":\"" + receiver.url("/hook") + "\",\"maxAttempts\":1");
      List<String> dead = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        dead.add(create(admin, "{\"definition\":\"" + def + "\",\"payload\":{\"n\":" + i + "}}"));
      }
      dead.forEach(id -> awaitStatus(id, "DEAD", Duration.ofSeconds(10)));
      ConsoleSession operator = operator();
      String confirm = operator.get("/console/notices/bulk?action=recover&definition=" + def).body();
      assertThat(confirm).contains("id=\"count\">7<");
      Matcher m = SELECTION.matcher(confirm);
      assertThat(m.find()).isTrue();
      String form = "action=recover&definition=" + def + "&selection=" + m.group(1) + "&_csrf="
          + ConsoleSession.csrf(confirm);

      String late = create(admin, "{\"definition\":\"" + def + "\",\"payload\":{\"n\":7}}"); // DEAD after the count
      awaitStatus(late, "DEAD", Duration.ofSeconds(10));
      receiver.otherwise(Receiver.Response.ok("ok"));
      String after = followed(operator, operator.post("/console/notices/bulk", form));
      assertThat(after).contains("recover: 7 of 7 confirmed notice(s) done");
      dead.forEach(id -> awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10)));
      assertThat(notice(late).get("status").asString()).as("not counted, not touched").isEqualTo("DEAD");

      String again = followed(operator, operator.post("/console/notices/bulk", form));
      assertThat(again).contains("That confirmation was used or has expired; nothing was changed");
      assertThat(notice(late).get("status").asString()).isEqualTo("DEAD");
    }
  }

  @Test
  void aResendSaysWhatItDidAndTheAttemptShowsStatusHeadersAndBodyWithTheExchangeFolded() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.then(new Receiver.Response(503, java.util.Map.of("Retry-After", "1"), "busy, come back", Duration.ZERO))
          .otherwise(Receiver.Response.ok("ok"));
      String def = define("resend", "\"target\":\"" + receiver.url("/hook") + "\",\"maxAttempts\":1");
      String id = create(admin, "{\"definition\":\"" + def + "\",\"payload\":{\"n\":1}}");
      awaitStatus(id, "DEAD", Duration.ofSeconds(10));
      ConsoleSession operator = operator();
      String page = operator.get("/console/notices/" + id).body();
      assertThat(page).contains("class=\"attempt-summary\">HTTP 503")
          .contains("(attempt 1 of 1: no retry left, DEAD)</strong>")
          .contains("<code>HTTP/1.1 503</code>")
          .contains("retry-after: 1")
          .contains("class=\"attempt-body\">busy, come back</pre>")
          .contains("<summary>Full exchange</summary>")
          .contains("&gt; POST " + receiver.url("/hook"));

      String after = followed(operator, operator.post("/console/notices/" + id + "/resend",
          "_csrf=" + ConsoleSession.csrf(page)));
      assertThat(after).contains("Resent: due now with a fresh attempt budget").doesNotContain("now PENDING");
      awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    }
  }

  @Test
  void theAlertDefinitionsCannotBeDeleted() {
    for (String name : List.of("herald-alert-mail", "herald-alert-webhook")) {
      TestServer.Resp r = admin.delete("/api/v1/definitions/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
      assertThat(r.status()).as(r.toString()).isEqualTo(409);
      assertThat(r.text()).contains("built in").contains("no alert would go out");
      assertThat(admin.get("/api/v1/definitions/" + name).status()).isEqualTo(200);
    }
  }
}
