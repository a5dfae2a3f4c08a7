package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Each kind of bad input, and the exact answer it gets. */
class BadInputTest extends ServerTest {
  private static final String NOTICES = "/api/v1/notices";

  private static TestServer.Resp createNotices(String json) {
    return admin.post(NOTICES, json);
  }

  private static void assertInvalid(TestServer.Resp r, String field, String reasonPart) {
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
    assertThat(r.header("content-type")).startsWith("application/problem+json");
    assertThat(r.error()).isEqualTo("invalid_input");
    assertThat(r.field()).as(r.toString()).isEqualTo(field);
    assertThat(r.json().get("reason").asString()).contains(reasonPart);
    assertThat(r.json().get("detail").asString()).startsWith(field + ": ");
  }

  @Test
  void malformedJsonNamesThePosition() {
    TestServer.Resp r = createNotices("{\"notices\": [\n  {\"payload\": 1,,}\n]}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.error()).isEqualTo("malformed_json");
    assertThat(r.json().get("detail").asString()).startsWith("malformed JSON at line 2, column 17:");

    assertThat(createNotices("{\"notices\": []} trailing").json().get("detail").asString())
        .startsWith("malformed JSON at line 1, column 17: Unrecognized token 'trailing'");
    assertThat(createNotices("").error()).isEqualTo("malformed_json");
    assertThat(createNotices("{\"notices\": [], \"notices\": []}").json().get("detail").asString())
        .contains("Duplicate").contains("notices");
  }

  @Test
  void aBodyThatIsNotJsonGets415() {
    TestServer.Resp r = admin.send("POST", NOTICES, "notices=1", "application/x-www-form-urlencoded");
    assertThat(r.status()).isEqualTo(415);
    assertThat(r.error()).isEqualTo("unsupported_media_type");
    assertThat(admin.send("POST", NOTICES, "{}", null).status()).isEqualTo(415);
  }

  @Test
  void badNoticeFieldsAreNamedByTheirPath() {
    assertInvalid(createNotices("[]"), "body", "must be a JSON object");
    assertInvalid(createNotices("{}"), "notices", "is required");
    assertInvalid(createNotices("{\"notices\": []}"), "notices", "at least one");
    assertInvalid(createNotices("{\"notices\": [], \"extra\": 1}"), "extra", "unknown field");
    String ok = "{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1, \"delay\": \"1h\"}";
    TestServer.Resp r = createNotices("{\"notices\": [%s, %s, %s, {\"callbackUrl\": \"http://127.0.0.1:9/x\","
        .formatted(ok, ok, ok) + " \"payload\": 1, \"fireAt\": \"tomorrow\"}]}");
    assertInvalid(r, "notices[3].fireAt", "must be an ISO-8601 time with a zone offset");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\","
        + " \"payload\": 1, \"fireAt\": \"2026-05-01T12:00:00\"}]}"), "notices[0].fireAt", "zone offset");
    assertInvalid(createNotices("{\"notices\": [%s, {\"callbackUrl\": \"http://127.0.0.1:9/x\"}]}".formatted(ok)),
        "notices[1].payload", "is required");
    assertInvalid(createNotices("{\"notices\": [{\"definition\": \"no-such-def\", \"payload\": 1}]}"),
        "notices[0].definition", "no definition named 'no-such-def'");
    assertInvalid(createNotices("{\"notices\": [{\"payload\": 1}]}"), "notices[0].definition", "callbackUrl");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1,"
        + " \"delay\": \"5 minutes\"}]}"), "notices[0].delay", "is not a duration");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1,"
        + " \"delay\": \"5m\", \"fireAt\": \"2030-01-01T00:00:00Z\"}]}"), "notices[0].delay", "not both");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": 42, \"payload\": 1}]}"),
        "notices[0].callbackUrl", "must be a string, was the number 42");
    assertInvalid(createNotices("{\"notices\": [{\"notifyUrl\": \"http://127.0.0.1:9/x\", \"content\": 1}]}"),
        "notices[0].notifyUrl", "did you mean callbackUrl?");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1,"
        + " \"idempotencyKey\": \"\"}]}"), "notices[0].idempotencyKey", "1 to 200 characters");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": \"%s\"}]}"
        .formatted("x".repeat(5000))), "notices[0].payload", "the limit is 4096");
    // Several refused items are all listed.
    TestServer.Resp many = createNotices("{\"notices\": [{\"payload\": 1}, %s, {\"callbackUrl\": \"x\"}]}".formatted(ok));
    assertThat(many.json().get("errors")).extracting(e -> e.get("field").asString())
        .containsExactly("notices[0].definition", "notices[2].payload");
  }

  @Test
  void callbackUrlsOnPrivateNetworksAreRefused() {
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://10.0.0.7/hook\", \"payload\": 1}]}"),
        "notices[0].callbackUrl", "herald.http.allow-private-networks=true or herald.http.allow=10.0.0.7");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://169.254.169.254/latest/meta-data\","
        + " \"payload\": 1}]}"), "notices[0].callbackUrl", "metadata");
    assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"ftp://example.com/x\", \"payload\": 1}]}"),
        "notices[0].callbackUrl", "http");
  }

  @Test
  void batchesOverTheLimitAreRefusedNamingIt() {
    StringBuilder items = new StringBuilder();
    for (int i = 0; i <= 1000; i++) {
      items.append(i == 0 ? "" : ",").append("{\"payload\":1}");
    }
    assertInvalid(createNotices("{\"notices\": [" + items + "]}"), "notices",
        "holds 1001 items; the limit is 1000 per request");
    StringBuilder ids = new StringBuilder();
    for (int i = 0; i <= 1000; i++) {
      ids.append(i == 0 ? "" : ",").append('"').append(UUID.randomUUID()).append('"');
    }
    assertInvalid(admin.post(NOTICES + "/lookup", "{\"ids\": [" + ids + "]}"), "ids", "the limit is 1000");
  }

  @Test
  void bodiesOverTheSizeLimitGet413() {
    String big = "{\"notices\": [{\"payload\": \"" + "x".repeat(300 * 1024) + "\"}]}";
    TestServer.Resp r = createNotices(big);
    assertThat(r.status()).isEqualTo(413);
    assertThat(r.error()).isEqualTo("too_large");
    assertThat(r.json().get("detail").asString()).contains("the limit is 262144 bytes");
  }

  @Test
  void unknownThingsGet404() {
    TestServer.Resp notice = admin.get(NOTICES + "/" + UUID.randomUUID());
    assertThat(notice.status()).isEqualTo(404);
    assertThat(notice.error()).isEqualTo("not_found");
    assertThat(admin.post(NOTICES + "/" + UUID.randomUUID() + "/cancel").status()).isEqualTo(404);
    assertThat(admin.post(NOTICES + "/" + UUID.randomUUID() + "/resend").status()).isEqualTo(404);
    assertThat(admin.get("/api/v1/definitions/no-such-definition").status()).isEqualTo(404);
    assertThat(admin.put("/api/v1/definitions/no-such-definition", "{}").status()).isEqualTo(404);
    assertThat(admin.get("/api/v1/nothing-here").status()).isEqualTo(404);
    assertInvalid(admin.get(NOTICES + "/not-a-uuid"), "id", "must be a notice id");
  }

  @Test
  void illegalTransitionsGet409() {
    String id = create(admin, "{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1, \"delay\": \"1h\"}");
    TestServer.Resp confirm = admin.post(NOTICES + "/" + id + "/confirm");
    assertThat(confirm.status()).isEqualTo(409);
    assertThat(confirm.error()).isEqualTo("illegal_transition");
    assertThat(confirm.json().get("detail").asString()).contains("PENDING");
    assertThat(admin.post(NOTICES + "/" + id + "/cancel").status()).isEqualTo(200);
    assertThat(admin.post(NOTICES + "/" + id + "/cancel").status()).isEqualTo(409);

    TestServer.Resp dup = admin.post("/api/v1/definitions", "{\"name\": \"callback\"}");
    assertThat(dup.status()).isEqualTo(409);
    assertThat(dup.error()).isEqualTo("already_exists");
    TestServer.Resp builtIn = admin.delete("/api/v1/definitions/callback");
    assertThat(builtIn.status()).isEqualTo(409);
    assertThat(builtIn.error()).isEqualTo("built_in");
  }

  @Test
  void badDefinitionsAreNamedByField() {
    String defs = "/api/v1/definitions";
    assertInvalid(admin.post(defs, "{\"target\": \"https://example.com/\"}"), "name", "is required");
    assertInvalid(admin.post(defs, "{\"name\": \"bad name!\"}"), "name", "letters, digits");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"retry\": \"sometimes\"}".formatted(unique("d"))), "retry",
        "sometimes");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"maxAttempts\": 0}".formatted(unique("d"))), "maxAttempts",
        "must be >= 1, or -1 for unlimited");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"alert\": \"loudly\"}".formatted(unique("d"))), "alert",
        "final-failure");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"confirmTimeout\": \"soon\"}".formatted(unique("d"))),
        "confirmTimeout", "is not a duration");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"channel\": \"local\"}".formatted(unique("d"))), "channel",
        "no in-process handlers");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"channel\": \"kafka\", \"target\": \"t\"}"
        .formatted(unique("d"))), "channel", "no channel named 'kafka'");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"target\": \"http://192.168.1.10/\"}".formatted(unique("d"))),
        "target", "herald.http.allow=192.168.1.10");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"options\": {\"timeout\": \"fast\"}}".formatted(unique("d"))),
        "options.timeout", "is not a duration");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"options\": {\"secrets\": \"hunter2\"}}"
        .formatted(unique("d"))), "options.secrets", "whsec_");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"options\": {\"secrets\": \"********\"}}"
        .formatted(unique("d"))), "options.secrets", "send the value itself");
    assertInvalid(admin.post(defs, "{\"name\": \"%s\", \"options\": {\"max-concurrency\": 5}}".formatted(unique("d"))),
        "options.max-concurrency", "must be a string");
    String name = define("renamed", "");
    assertInvalid(admin.put(defs + "/" + name, "{\"name\": \"other\"}"), "name", "cannot be renamed");
  }

  @Test
  void badEditsLookupsAndSearchesAreNamed() {
    assertInvalid(admin.patch(NOTICES, "{\"notices\": [{\"id\": \"nope\", \"payload\": 1}]}"), "notices[0].id",
        "must be a notice id");
    assertInvalid(admin.patch(NOTICES, "{\"notices\": [{\"id\": \"%s\"}]}".formatted(UUID.randomUUID())),
        "notices[0]", "changes nothing");
    assertInvalid(admin.patch(NOTICES, "{\"notices\": [{\"id\": \"%s\", \"callbackUrl\": \"http://10.1.1.1/\"}]}"
        .formatted(UUID.randomUUID())), "notices[0].callbackUrl", "private");
    assertInvalid(admin.post(NOTICES + "/cancel", "{\"ids\": [\"%s\", 7]}".formatted(UUID.randomUUID())), "ids[1]",
        "must be a notice id");
    assertInvalid(admin.get(NOTICES + "?status=LOST"), "status", "'LOST' is not one of");
    assertInvalid(admin.get(NOTICES + "?limit=0"), "limit", "between 1 and 1000");
    assertInvalid(admin.get(NOTICES + "?limit=many"), "limit", "whole number");
    assertInvalid(admin.get(NOTICES + "?createdFrom=yesterday"), "createdFrom", "ISO-8601");
    assertInvalid(admin.get(NOTICES + "?sort=asc"), "sort", "unknown parameter");
    assertInvalid(admin.post(NOTICES + "/recover", "{\"definition\": \"callback\"}"), "from", "is required");
    assertInvalid(admin.post(NOTICES + "/recover", "{\"definition\": \"nope\", \"from\": \"2026-01-01T00:00:00Z\"}"),
        "definition", "no definition named 'nope'");
  }

  @Test
  void fireTimesBeyondTheHorizonAreRefusedAndNothingIsWritten() {
    String def = define("horizon", "\"target\": \"http://127.0.0.1:9/x\"");
    String ok = "{\"definition\": \"%s\", \"payload\": 1, \"delay\": \"3000d\"}".formatted(def);
    assertInvalid(createNotices("{\"notices\": [%s, {\"definition\": \"%s\", \"payload\": 1,".formatted(ok, def)
        + " \"fireAt\": \"+999999-01-01T00:00:00Z\"}]}"), "notices[1].fireAt",
        "more than 3650d ahead (herald.server.max-schedule-ahead)");
    assertInvalid(createNotices("{\"notices\": [{\"definition\": \"%s\", \"payload\": 1,".formatted(def)
        + " \"delay\": \"100000000d\"}]}"), "notices[0].delay", "'100000000d' is more than 3650d ahead");
    assertThat(admin.get(NOTICES + "?definition=" + def).json().get("items")).isEmpty();
    String id = create(admin, ok);
    assertInvalid(admin.patch(NOTICES, "{\"notices\": [{\"id\": \"%s\", \"fireAt\": \"2999-01-01T00:00:00Z\"}]}"
        .formatted(id)), "notices[0].fireAt", "the latest accepted now is");
    assertThat(java.time.Instant.parse(notice(id).get("fireAt").asString()))
        .isAfter(java.time.Instant.now().plus(Duration.ofDays(2999)));
  }

  @Test
  void unknownDefinitionOptionsAreRefusedListingTheKnownOnes() {
    String name = unique("colour");
    assertInvalid(admin.post("/api/v1/definitions", "{\"name\": \"%s\", \"options\": {\"timeout\": \"5s\","
        .formatted(name) + " \"colour\": \"red\"}}"), "options.colour",
        "unknown option of channel http; the known ones are timeout, expected-body, secrets");
    assertThat(admin.get("/api/v1/definitions/" + name).status()).isEqualTo(404);
    assertInvalid(admin.post("/api/v1/definitions", "{\"name\": \"%s\", \"options\": {\"max-concurency\": \"4\"}}"
        .formatted(name)), "options.max-concurency", "did you mean 'max-concurrency'?");
    assertThat(admin.get("/api/v1/definitions/" + name).status()).isEqualTo(404);
    assertInvalid(admin.post("/api/v1/definitions", "{\"name\": \"%s\", \"options\": {\"alert.emial\":"
        .formatted(unique("d")) + " \"ops@example.com\"}}"), "options.alert.emial",
        "unknown option of alerts; did you mean 'alert.email'? the known ones are alert.email, alert.webhook,"
            + " alert.recovered");
    assertInvalid(admin.post("/api/v1/definitions", "{\"name\": \"%s\", \"options\": {\"alert.recovered\":"
        .formatted(unique("d")) + " \"yes\"}}"), "options.alert.recovered", "must be true or false");
    String existing = define("colour", "\"options\": {\"timeout\": \"5s\"}");
    assertInvalid(admin.put("/api/v1/definitions/" + existing, "{\"options\": {\"timeuot\": \"5s\"}}"),
        "options.timeuot", "the known ones are");
    assertThat(admin.get("/api/v1/definitions/" + existing).json().get("options").get("timeout").asString())
        .isEqualTo("5s");
  }

  @Test
  void ipLiteralsInNonCanonicalFormsAreRefusedAtSave() {
    for (String host : new String[] {"0x7f000001", "017700000001", "0177.0.0.1", "2130706433", "127.1", "127.0.0.01"}) {
      assertInvalid(createNotices("{\"notices\": [{\"callbackUrl\": \"http://%s/x\", \"payload\": 1}]}"
          .formatted(host)), "notices[0].callbackUrl", "non-canonical form");
      String name = unique("ip");
      assertInvalid(admin.post("/api/v1/definitions", "{\"name\": \"%s\", \"target\": \"http://%s:8080/x\"}"
          .formatted(name, host)), "target", "write it as four decimal numbers, e.g. 127.0.0.1");
      assertThat(admin.get("/api/v1/definitions/" + name).status()).isEqualTo(404);
    }
    // The canonical form and host names that merely contain digits are fine.
    assertThat(createNotices("{\"notices\": [{\"callbackUrl\": \"http://127.0.0.1:9/x\", \"payload\": 1,"
        + " \"delay\": \"1h\"}]}").status()).isEqualTo(201);
    define("ip", "\"target\": \"https://0x7f.example.com/x\"");
  }

  @Test
  void aWrongMethodGets405() {
    TestServer.Resp r = admin.delete(NOTICES);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.error()).isEqualTo("method_not_allowed");
    assertThat(r.header("allow")).contains("POST");
  }
}
