package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Webhook delivery end to end: notices created over the API, delivered by the HTTP channel to real
 * receivers on loopback, with the definition's retry schedule, expected body, signatures, 410,
 * Retry-After, and isolation between endpoints.
 */
class WebhookDeliveryTest extends ServerTest {

  @Test
  void failedAttemptsAreRetriedOnTheDefinitionsSchedule() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.then(Receiver.Response.status(500), Receiver.Response.status(502)).otherwise(Receiver.Response.ok("ok"));
      String def = define("scheduled", "\"target\": \"%s\", \"retry\": \"1s, 2s\", \"maxAttempts\": 5"
          .formatted(receiver.url("/hook")));
      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{\"n\":1}}".formatted(def));
      JsonNode done = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));

      List<Long> at = receiver.requests.stream().map(Receiver.Request::receivedAtMillis).toList();
      assertThat(at).hasSize(3);
      assertThat(at.get(1) - at.get(0)).as("first retry after 1s").isBetween(950L, 1700L);
      assertThat(at.get(2) - at.get(1)).as("second retry after 2s").isBetween(1950L, 2700L);
      assertThat(receiver.requests).extracting(r -> r.header("herald-attempt")).containsExactly("1", "2", "3");
      assertThat(receiver.requests).extracting(r -> r.header("webhook-id")).containsOnly(id);
      assertThat(done.get("attempts").asInt()).isEqualTo(3);
      assertThat(done.get("attemptLog")).extracting(a -> a.get("outcome").asString())
          .containsExactly("RETRY", "RETRY", "DELIVERED");
      assertThat(done.get("attemptLog").get(0).get("detail").asString()).startsWith("HTTP 500");
    }
  }

  @Test
  void theCallerOfPostNoticesAndTheReceiverThreeAttemptsLaterShareOneTrace() throws Exception {
    String callerTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String itemTrace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    try (Receiver receiver = new Receiver()) {
      receiver.then(Receiver.Response.status(503), Receiver.Response.status(503))
          .otherwise(Receiver.Response.ok("ok"));
      String def = define("traced", "\"target\": \"%s\", \"retry\": \"200ms\"".formatted(receiver.url("/hook")));
      TestServer.Resp r = admin.post("/api/v1/notices", """
          {"notices": [{"definition": "%s", "payload": {"order": 42}},
                       {"definition": "%s", "payload": {"order": 43}, "traceparent": "%s"}]}"""
          .formatted(def, def, itemTrace), "traceparent", callerTrace);
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      String paid = r.json().get("ids").get(0).asString();
      String own = r.json().get("ids").get(1).asString();

      JsonNode done = awaitStatus(paid, "SUCCEEDED", Duration.ofSeconds(10));
      awaitStatus(own, "SUCCEEDED", Duration.ofSeconds(10));
      assertThat(done.get("traceparent").asString()).isEqualTo(callerTrace);
      List<String> paidTraces = receiver.requests.stream()
          .filter(q -> q.header("webhook-id").equals(paid)).map(q -> q.header("traceparent")).toList();
      assertThat(paidTraces).hasSizeGreaterThanOrEqualTo(1)
          .allSatisfy(t -> assertThat(t).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-"));
      assertThat(receiver.requests.stream().filter(q -> q.header("webhook-id").equals(own))
          .map(q -> q.header("traceparent"))).allSatisfy(t -> assertThat(t).startsWith("00-0af7651916cd43dd8448eb211c80319c-"));
      assertThat(receiver.requests).hasSize(4);

      // A malformed header is ignored (W3C); a malformed field is refused, naming it.
      String plain = create(admin, "{\"definition\":\"%s\",\"payload\":{}}".formatted(def));
      assertThat(notice(plain).get("traceparent").isNull()).isTrue();
      TestServer.Resp bad = admin.post("/api/v1/notices",
          "{\"notices\":[{\"definition\":\"%s\",\"payload\":{},\"traceparent\":\"00-zz\"}]}".formatted(def),
          "traceparent", "garbage");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.text()).contains("notices[0].traceparent");
      TestServer.Resp ignored = admin.post("/api/v1/notices",
          "{\"notices\":[{\"definition\":\"%s\",\"payload\":{}}]}".formatted(def), "traceparent", "garbage");
      assertThat(ignored.status()).isEqualTo(201);
      assertThat(notice(ignored.json().get("ids").get(0).asString()).get("traceparent").isNull()).isTrue();
    }
  }

  @Test
  void aTwoHundredCountsOnlyWithTheExpectedBody() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.then(Receiver.Response.ok("ok")).otherwise(Receiver.Response.ok("  success\n"));
      String def = define("merchant", """
          "target": "%s", "retry": "200ms", "options": {"expected-body": "success"}""".formatted(receiver.url("/notify")));
      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{\"order\":42,\"status\":\"paid\"}}".formatted(def));
      JsonNode done = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
      assertThat(done.get("attempts").asInt()).isEqualTo(2);
      assertThat(done.get("attemptLog").get(0).get("outcome").asString()).isEqualTo("RETRY");
      assertThat(done.get("attemptLog").get(0).get("detail").asString())
          .startsWith("HTTP 200 OK but the body is not the expected 'success'");
      assertThat(done.get("attemptLog").get(1).get("detail").asString()).contains("with the expected body: delivered");
    }
  }

  @Test
  void deliveriesAreSignedPerStandardWebhooksAndSecretsAreWriteOnly() throws Exception {
    String oldSecret = newSecret();
    String newSecret = newSecret();
    try (Receiver receiver = new Receiver()) {
      String def = define("signed", """
          "target": "%s", "options": {"secrets": "%s %s", "timeout": "5s", "full-success-log": "true"}"""
          .formatted(receiver.url("/signed"), oldSecret, newSecret));
      JsonNode shown = admin.get("/api/v1/definitions/" + def).json();
      assertThat(shown.get("options").get("secrets").asString()).isEqualTo("********");
      assertThat(shown.get("options").get("timeout").asString()).isEqualTo("5s");
      assertThat(admin.get("/api/v1/definitions").text()).doesNotContain(oldSecret).doesNotContain(newSecret);

      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{\"amount\":\"12.50\"}}".formatted(def));
      JsonNode done = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
      Receiver.Request r = receiver.requests.getFirst();
      String ts = r.header("webhook-timestamp");
      String sig = r.header("webhook-signature");
      assertThat(sig.split(" ")).hasSize(2);
      Instant now = Instant.now();
      assertThat(Verifier.of(oldSecret).verify(id, ts, sig, r.bodyBytes(), now)).as("old secret").isTrue();
      assertThat(Verifier.of(newSecret).verify(id, ts, sig, r.bodyBytes(), now)).as("new secret").isTrue();
      assertThat(Verifier.of(newSecret()).verify(id, ts, sig, r.bodyBytes(), now)).as("another secret").isFalse();
      byte[] tampered = r.body().replace("12.50", "99.50").getBytes(StandardCharsets.UTF_8);
      assertThat(Verifier.of(newSecret).verify(id, ts, sig, tampered, now)).as("tampered").isFalse();
      assertThat(done.get("attemptLog").get(0).get("detail").asString()).contains("webhook-signature: v1,****")
          .doesNotContain(sig.split(" ")[0].substring(3));

      // An update that sends the mask back keeps the stored secrets.
      TestServer.Resp updated = admin.put("/api/v1/definitions/" + def, """
          {"target": "%s", "retry": "5s", "options": {"secrets": "********", "timeout": "5s"}}"""
          .formatted(receiver.url("/signed")));
      assertThat(updated.status()).as(updated.toString()).isEqualTo(200);
      assertThat(updated.json().get("retry").asString()).isEqualTo("5s");
      String id2 = create(admin, "{\"definition\":\"%s\",\"payload\":[1,2,3]}".formatted(def));
      awaitStatus(id2, "SUCCEEDED", Duration.ofSeconds(10));
      Receiver.Request r2 = receiver.requests.get(1);
      assertThat(Verifier.of(newSecret).verify(id2, r2.header("webhook-timestamp"), r2.header("webhook-signature"),
          r2.bodyBytes(), Instant.now())).isTrue();
    }
  }

  @Test
  void gone410IsAFinalFailure() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.otherwise(Receiver.Response.status(410));
      String def = define("gone", "\"target\": \"%s\", \"retry\": \"100ms\", \"maxAttempts\": 5"
          .formatted(receiver.url("/gone")));
      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{}}".formatted(def));
      JsonNode dead = awaitStatus(id, "DEAD", Duration.ofSeconds(10));
      Thread.sleep(300);
      assertThat(receiver.count()).as("never retried").isEqualTo(1);
      assertThat(dead.get("attempts").asInt()).isEqualTo(1);
      assertThat(dead.get("attemptLog").get(0).get("outcome").asString()).isEqualTo("FAIL");
      assertThat(dead.get("lastError").asString()).contains("HTTP 410 Gone").contains("not retrying");
    }
  }

  @Test
  void retryAfterPostponesTheNextAttemptBeyondTheSchedule() throws Exception {
    try (Receiver receiver = new Receiver()) {
      receiver.then(Receiver.Response.status(503).header("Retry-After", "2")).otherwise(Receiver.Response.ok(""));
      String def = define("busy", "\"target\": \"%s\", \"retry\": \"100ms\"".formatted(receiver.url("/busy")));
      String id = create(admin, "{\"definition\":\"%s\",\"payload\":{}}".formatted(def));
      JsonNode done = awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
      List<Long> at = receiver.requests.stream().map(Receiver.Request::receivedAtMillis).toList();
      assertThat(at).hasSize(2);
      assertThat(at.get(1) - at.get(0)).as("waited for Retry-After, not the 100ms schedule").isBetween(1950L, 3000L);
      assertThat(done.get("attemptLog").get(0).get("detail").asString())
          .startsWith("HTTP 503 Service Unavailable with Retry-After: 2; next attempt in no less than 2s");
    }
  }

  @Test
  void aHungReceiverDoesNotDelayCallbacksToOthers() throws Exception {
    try (Receiver hung = new Receiver(); Receiver healthy = new Receiver()) {
      hung.otherwise(Receiver.Response.ok("").after(Duration.ofSeconds(12)));
      String slow = define("hung", "\"target\": \"%s\", \"retry\": \"1h\", \"options\": {\"timeout\": \"10s\"}"
          .formatted(hung.url("/hung")));
      // More hung notices than the engine has delivery slots (64): without a per-endpoint limit they
      // would hold every slot.
      StringBuilder items = new StringBuilder();
      for (int i = 0; i < 100; i++) {
        items.append(i == 0 ? "" : ",").append("{\"definition\":\"%s\",\"payload\":%d}".formatted(slow, i));
      }
      TestServer.Resp hungBatch = admin.post("/api/v1/notices", "{\"notices\":[" + items + "]}");
      assertThat(hungBatch.status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(5)).until(() -> hung.count() >= 16);

      Instant fireAt = Instant.now().plusMillis(800);
      StringBuilder ok = new StringBuilder();
      for (int i = 0; i < 20; i++) {
        ok.append(i == 0 ? "" : ",").append("{\"callbackUrl\":\"%s\",\"payload\":%d,\"fireAt\":\"%s\"}"
            .formatted(healthy.url("/ok"), i, fireAt));
      }
      assertThat(admin.post("/api/v1/notices", "{\"notices\":[" + ok + "]}").status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(5)).until(() -> healthy.count() == 20);
      long latest = healthy.requests.stream().mapToLong(Receiver.Request::receivedAtMillis).max().orElseThrow();
      assertThat(latest - fireAt.toEpochMilli()).as("the healthy receiver's callbacks are on time").isLessThan(500);
      assertThat(hung.count()).as("the hung endpoint holds at most its limit of requests").isLessThanOrEqualTo(16);

      List<String> ids = new ArrayList<>();
      hungBatch.json().get("ids").forEach(n -> ids.add("\"" + n.asString() + "\""));
      admin.post("/api/v1/notices/cancel", "{\"ids\":[" + String.join(",", ids) + "]}");
    }
  }

  static String newSecret() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  /**
   * A receiver's check written from the Standard Webhooks spec (https://www.standardwebhooks.com),
   * not from Herald's code: HMAC-SHA256 over {@code id.timestamp.body} keyed with the base64 part of
   * {@code whsec_...}; the header lists {@code v1,<base64>} entries, any of which may match; the
   * timestamp must be within 5 minutes.
   */
  record Verifier(byte[] key) {
    static Verifier of(String secret) {
      return new Verifier(Base64.getDecoder().decode(secret.substring("whsec_".length())));
    }

    boolean verify(String id, String timestamp, String header, byte[] body, Instant now) throws Exception {
      if (Math.abs(now.getEpochSecond() - Long.parseLong(timestamp)) > 300) {
        return false;
      }
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      byte[] expected = mac.doFinal(body);
      for (String entry : header.split(" ")) {
        String[] parts = entry.split(",", 2);
        if (parts.length == 2 && parts[0].equals("v1")
            && MessageDigest.isEqual(expected, Base64.getDecoder().decode(parts[1]))) {
          return true;
        }
      }
      return false;
    }
  }
}
