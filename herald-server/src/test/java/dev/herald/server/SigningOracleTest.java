package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Signing that cannot be borrowed: a client may not have the body of its choice signed with a
 * definition's secret and sent to a URL of its choice (where it would verify as the merchant's real
 * notification), by creating or by editing a notice; and receivers confirm with the capability sent
 * with their webhook, without any API token.
 */
class SigningOracleTest extends ServerTest {

  private static String client(String tenant) {
    TestServer.Resp t = admin.post("/api/v1/tokens", "{\"name\":\"signing\",\"role\":\"client\""
        + (tenant == null ? "" : ",\"tenant\":\"" + tenant + "\"") + "}");
    assertThat(t.status()).as(t.toString()).isEqualTo(201);
    return t.json().get("token").asString();
  }

  @Test
  void aSignedDefinitionsNoticesGoOnlyToTheOriginsItOrItsTenantLists() throws Exception {
    String secret = WebhookDeliveryTest.newSecret();
    try (Receiver merchant = new Receiver(); Receiver attacker = new Receiver()) {
      String def = define("merchant-paid", "\"target\":\"%s\",\"options\":{\"secrets\":\"%s\"}"
          .formatted(merchant.url("/notify"), secret));
      TestServer.Api client = server.as(client(null));

      TestServer.Resp stolen = client.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"" + def
          + "\",\"callbackUrl\":\"" + attacker.url("/x") + "\",\"payload\":{\"paid\":\"999.00\"}}]}");
      assertThat(stolen.status()).as(stolen.toString()).isEqualTo(400);
      assertThat(stolen.field()).isEqualTo("notices[0].callbackUrl");
      assertThat(stolen.json().get("reason").asString()).contains("signs its webhooks")
          .contains(dev.herald.channel.http.HttpChannel.endpointOf(merchant.url("/")))
          .contains(dev.herald.channel.http.HttpChannel.endpointOf(attacker.url("/")) + " is not one of them");
      TestServer.Resp viaFallback = client.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"" + def
          + "\",\"callbackUrl\":\"" + merchant.url("/other") + "\",\"fallbackUrls\":[\"" + attacker.url("/y")
          + "\"],\"payload\":{}}]}");
      assertThat(viaFallback.status()).as(viaFallback.toString()).isEqualTo(400);
      assertThat(viaFallback.field()).isEqualTo("notices[0].fallbackUrls[0]");

      // its own origin, another path: fine, and it verifies there
      String ok = create(client, "{\"definition\":\"" + def + "\",\"callbackUrl\":\"" + merchant.url("/other")
          + "\",\"payload\":{\"paid\":\"12.50\"}}");
      awaitStatus(ok, "SUCCEEDED", Duration.ofSeconds(10));
      Receiver.Request r = merchant.requests.getLast();
      assertThat(r.path()).isEqualTo("/other");
      assertThat(WebhookDeliveryTest.Verifier.of(secret).verify(ok, r.header("webhook-timestamp"),
          r.header("webhook-signature"), r.bodyBytes(), Instant.now())).isTrue();

      // an origin the definition lists (option callback-origins)
      TestServer.Resp listed = admin.put("/api/v1/definitions/" + def, "{\"target\":\"%s\",\"options\":{\"secrets\":"
          .formatted(merchant.url("/notify")) + "\"********\",\"callback-origins\":\"" + attacker.url("/") + "\"}}");
      assertThat(listed.status()).as(listed.toString()).isEqualTo(200);
      assertThat(client.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"" + def + "\",\"callbackUrl\":\""
          + attacker.url("/listed") + "\",\"payload\":{},\"delay\":\"1h\"}]}").status()).isEqualTo(201);
      assertThat(attacker.requests).as("nothing signed reached an origin before it was listed").isEmpty();

      // unsigned definitions (direct callbacks) take any URL, as before
      assertThat(client.post("/api/v1/notices", "{\"notices\":[{\"callbackUrl\":\"" + attacker.url("/cb")
          + "\",\"payload\":{},\"delay\":\"1h\"}]}").status()).isEqualTo(201);
    }
  }

  @Test
  void aTenantsOwnOriginsAreAllowedForItsNoticesOnly() throws Exception {
    String secret = WebhookDeliveryTest.newSecret();
    try (Receiver merchant = new Receiver(); Receiver partner = new Receiver()) {
      String def = define("shared-signed", "\"target\":\"%s\",\"options\":{\"secrets\":\"%s\"}"
          .formatted(merchant.url("/notify"), secret));
      String tenant = "sig" + UUID.randomUUID().toString().substring(0, 6);
      assertThat(admin.post("/api/v1/tenants", "{\"id\":\"" + tenant + "\",\"callbackOrigins\":[\""
          + partner.url("/") + "\"]}").status()).isEqualTo(201);
      assertThat(admin.put("/api/v1/tenants/" + tenant + "/grants/" + def, "").status()).isEqualTo(200);
      String body = "{\"notices\":[{\"definition\":\"" + def + "\",\"callbackUrl\":\"" + partner.url("/in")
          + "\",\"payload\":{},\"delay\":\"1h\"}]}";
      assertThat(server.as(client(tenant)).post("/api/v1/notices", body).status()).isEqualTo(201);
      TestServer.Resp other = server.as(client(null)).post("/api/v1/notices", body);
      assertThat(other.status()).as("the default tenant does not list that origin: " + other).isEqualTo(400);
    }
  }

  @Test
  void anEditNeverMovesASignedNoticeToAnotherOrigin() throws Exception {
    String secret = WebhookDeliveryTest.newSecret();
    try (Receiver merchant = new Receiver(); Receiver attacker = new Receiver()) {
      String def = define("moved", "\"target\":\"%s\",\"options\":{\"secrets\":\"%s\"}"
          .formatted(merchant.url("/notify"), secret));
      TestServer.Api client = server.as(client(null));
      String id = create(client, "{\"definition\":\"" + def + "\",\"payload\":{\"paid\":\"1.00\"},\"delay\":\"1h\"}");

      TestServer.Resp moved = client.patch("/api/v1/notices", "{\"notices\":[{\"id\":\"" + id + "\",\"callbackUrl\":\""
          + attacker.url("/steal") + "\",\"payload\":{\"paid\":\"999.00\"}}]}");
      assertThat(moved.status()).isEqualTo(200);
      JsonNode item = moved.json().get("results").get(0);
      assertThat(item.get("status").asInt()).as(moved.toString()).isEqualTo(400);
      assertThat(item.get("error").get("field").asString()).isEqualTo("notices[0].callbackUrl");
      assertThat(item.get("error").get("reason").asString()).contains("signs its webhooks").contains("not move it");
      assertThat(notice(id).get("payload").toString()).as("nothing of the edit applied").contains("1.00");

      TestServer.Resp samePlace = client.patch("/api/v1/notices", "{\"notices\":[{\"id\":\"" + id
          + "\",\"callbackUrl\":\"" + merchant.url("/other") + "\"}]}");
      assertThat(samePlace.json().get("results").get(0).get("status").asInt()).as(samePlace.toString()).isEqualTo(200);
      assertThat(client.post("/api/v1/notices/" + id + "/resend").status()).isEqualTo(200);
      awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
      assertThat(merchant.requests).extracting(Receiver.Request::path).containsExactly("/other");
      assertThat(attacker.requests).isEmpty();
    }
  }

  @Test
  void aReceiverConfirmsWithTheCapabilitySentWithItsWebhookAndNoToken() throws Exception {
    try (Receiver merchant = new Receiver()) {
      String def = define("confirmed", ("\"target\":\"%s\",\"confirmRequired\":true,\"confirmTimeout\":\"1h\","
          + "\"options\":{\"full-success-log\":\"true\"}")
          .formatted(merchant.url("/notify")));
      String first = create(admin, "{\"definition\":\"" + def + "\",\"payload\":1}");
      String second = create(admin, "{\"definition\":\"" + def + "\",\"payload\":2}");
      awaitStatus(first, "AWAITING_CONFIRM", Duration.ofSeconds(10));
      awaitStatus(second, "AWAITING_CONFIRM", Duration.ofSeconds(10));
      String url = merchant.requests.stream().filter(r -> r.header("webhook-id").equals(first)).findFirst()
          .orElseThrow().header("herald-confirm-url");
      assertThat(url).startsWith("/api/v1/notices/" + first + "/confirm?capability=");
      assertThat(notice(first).get("attemptLog").get(0).get("detail").asString())
          .as("the capability stays out of the attempt log").contains("herald-confirm-url: (not logged)")
          .doesNotContain(url.substring(url.indexOf('=') + 1));
      String capability = URI.create(url).getQuery().substring("capability=".length());

      TestServer.Resp wrongNotice = anonymous.post("/api/v1/notices/" + second + "/confirm?capability=" + capability);
      assertThat(wrongNotice.status()).as(wrongNotice.toString()).isEqualTo(401);
      TestServer.Resp tampered = anonymous.post(url.substring(0, url.length() - 2) + "xx");
      assertThat(tampered.status()).isEqualTo(401);
      assertThat(anonymous.post("/api/v1/notices/" + first + "/confirm").status()).as("no capability").isEqualTo(401);
      assertThat(anonymous.get("/api/v1/notices/" + first + "?capability=" + capability).status())
          .as("it confirms, nothing else").isEqualTo(401);
      assertThat(notice(second).get("status").asString()).isEqualTo("AWAITING_CONFIRM");

      TestServer.Resp confirmed = anonymous.post(url);
      assertThat(confirmed.status()).as(confirmed.toString()).isEqualTo(200);
      assertThat(confirmed.json().get("status").asString()).isEqualTo("SUCCEEDED");
      assertThat(notice(second).get("status").asString()).isEqualTo("AWAITING_CONFIRM");
    }
  }
}
