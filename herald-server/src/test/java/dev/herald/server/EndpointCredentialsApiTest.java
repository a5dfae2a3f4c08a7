package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An event endpoint's credentials over the API: secret values sealed at rest under {@code
 * herald.server.secret-key}, masked in every answer and in the attempt log, and opened only where the
 * HTTP channel sends them.
 */
class EndpointCredentialsApiTest extends ServerTest {

  private static String storedOptions(String definition) throws Exception {
    DataSource ds = server.context.getBean(DataSource.class);
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT options FROM herald_definition WHERE name = ?")) {
      ps.setString(1, definition);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getString(1);
      }
    }
  }

  @Test
  void secretValuesAreSealedAtRestMaskedInAnswersAndSentInPlain() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String type = unique("credential.check");
      assertThat(admin.post("/api/v1/event-types", "{\"name\": \"" + type + "\"}").status()).isEqualTo(201);
      String id = unique("acme");
      TestServer.Resp created = admin.post("/api/v1/event-endpoints", """
          {"id": "%s", "url": "%s", "eventTypes": ["%s"],
           "secretHeaders": {"X-Api-Key": "k-sealed-123"},
           "options": {"oauth2.client-secret": "never-shown", "oauth2.client-id": "acme",
                       "oauth2.url": "https://auth.acme.example/token",
                       "full-success-log": "true"}}"""
          .formatted(id, receiver.url("/in"), type));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      String secret = created.json().get("secret").asString();
      assertThat(created.text()).doesNotContain("k-sealed-123").doesNotContain("never-shown");
      assertThat(created.json().get("options").get("oauth2.client-secret").asString()).isEqualTo(Views.MASK);

      String stored = storedOptions("endpoint." + id);
      assertThat(stored).doesNotContain("k-sealed-123").doesNotContain("never-shown").doesNotContain(secret)
          .contains("secret-header.x-api-key=enc:v1:").contains("oauth2.client-secret=enc:v1:")
          .contains("secrets=enc:v1:");
      assertThat(admin.get("/api/v1/event-endpoints/" + id + "/secrets").json().get("secrets").get(0).asString())
          .isEqualTo(secret);

      // the token endpoint does not exist: no request is sent; then without OAuth 2.0 the sealed header goes out
      TestServer.Resp put = admin.put("/api/v1/event-endpoints/" + id, """
          {"url": "%s", "eventTypes": ["%s"], "secretHeaders": {"X-Api-Key": "********"},
           "options": {"full-success-log": "true"}}"""
          .formatted(receiver.url("/in"), type));
      assertThat(put.status()).as(put.toString()).isEqualTo(200);
      assertThat(storedOptions("endpoint." + id)).doesNotContain("oauth2").contains("secret-header.x-api-key=enc:v1:");
      String event = admin.post("/api/v1/events", "{\"type\": \"" + type + "\", \"payload\": {}}").json().get("id")
          .asString();
      await().atMost(Duration.ofSeconds(10)).until(() -> !receiver.requests.isEmpty());
      Receiver.Request got = receiver.requests.getFirst();
      assertThat(got.header("x-api-key")).isEqualTo("k-sealed-123");
      assertThat(new SigningCheck(secret).verifies(got)).as("signed with the secret shown at creation").isTrue();

      JsonNode delivery = admin.get("/api/v1/events/" + event).json().get("deliveries").get(0);
      // the receiver has the request before the outcome is recorded: wait for the record
      JsonNode delivered = awaitStatus(delivery.get("noticeId").asString(), "SUCCEEDED", Duration.ofSeconds(10));
      String log = delivered.get("attemptLog").get(0).get("detail").asString();
      assertThat(log).contains("> x-api-key: ****").doesNotContain("k-sealed-123");

      // a rotated secret is sealed too, and both sign
      String second = admin.post("/api/v1/event-endpoints/" + id + "/secrets/rotate").json().get("secret").asString();
      assertThat(storedOptions("endpoint." + id)).doesNotContain(second).doesNotContain(secret);
      assertThat(admin.get("/api/v1/event-endpoints/" + id + "/secrets").json().get("secrets"))
          .extracting(JsonNode::asString).containsExactly(second, secret);
    }
  }

  /** Standard Webhooks verification, as a receiver does it. */
  private record SigningCheck(String secret) {
    boolean verifies(Receiver.Request r) throws Exception {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(java.util.Base64.getDecoder().decode(secret.substring(6)),
          "HmacSHA256"));
      mac.update((r.header("webhook-id") + "." + r.header("webhook-timestamp") + ".")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      String expected = "v1," + java.util.Base64.getEncoder().encodeToString(mac.doFinal(r.bodyBytes()));
      return java.util.List.of(r.header("webhook-signature").split(" ")).contains(expected);
    }
  }
}
