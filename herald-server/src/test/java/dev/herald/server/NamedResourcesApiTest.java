package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each kind of named thing answers alike, in its own words ({@link ApiResource}): 201 with its
 * location, 409 for a name taken, 400 for a body naming another, 404 for one missing.
 */
class NamedResourcesApiTest extends ServerTest {

  @Test
  void eachKindAnswersInItsOwnWords() {
    String def = define("named", "\"target\": \"http://127.0.0.1:9/x\"");
    check("/api/v1/definitions", "name", def, "{\"name\": \"%s\"}",
        "definition", "no definition named", "; a definition cannot be renamed");
    check("/api/v1/event-types", "name", unique("named"), "{\"name\": \"%s\"}",
        "event type", "no event type named", "; an event type cannot be renamed");
    check("/api/v1/event-endpoints", "id", unique("named"), "{\"id\": \"%s\", \"url\": \"http://127.0.0.1:9/x\"}",
        "endpoint", "no event endpoint", "; an endpoint cannot be renamed");
    check("/api/v1/recurring", "name", unique("named"), "{\"name\": \"%s\", \"definition\": \"" + def
        + "\", \"every\": \"1h\", \"payload\": 1}", "recurring schedule", "no recurring schedule",
        "; a schedule cannot be renamed");
    check("/api/v1/tenants", "id", "named" + UUID.randomUUID().toString().substring(0, 6), "{\"id\": \"%s\"}",
        "tenant", "no tenant", "");
  }

  /** {@code id} is created by {@code body} unless it exists (the definition). */
  private static void check(String path, String key, String id, String body, String noun, String missing,
      String renamed) {
    if (!path.endsWith("definitions")) {
      TestServer.Resp created = admin.post(path, body.formatted(id));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      assertThat(created.header("Location")).endsWith(path + "/" + id);
    }
    TestServer.Resp taken = admin.post(path, body.formatted(id));
    assertThat(taken.status()).as(taken.toString()).isEqualTo(409);
    assertThat(taken.error()).isEqualTo("already_exists");
    assertThat(taken.json().get("detail").asString())
        .isEqualTo(noun + " '" + id + "' exists; change it with PUT " + path + "/" + id);
    TestServer.Resp renamed400 = admin.put(path + "/" + id, body.formatted("other"));
    assertThat(renamed400.status()).as(renamed400.toString()).isEqualTo(400);
    assertThat(renamed400.field()).isEqualTo(key);
    assertThat(renamed400.json().get("reason").asString())
        .isEqualTo("'other' differs from the " + key + " in the path, '" + id + "'" + renamed);
    TestServer.Resp missing404 = admin.get(path + "/nope-" + id);
    assertThat(missing404.status()).as(missing404.toString()).isEqualTo(404);
    assertThat(missing404.json().get("detail").asString()).isEqualTo(missing + " 'nope-" + id + "'");
    assertThat(admin.get(path).json().get("items").toString()).contains("\"" + id + "\"");
  }
}
