package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signatures checked by a verifier written here from the Standard Webhooks spec, not by production code. */
class SigningTest {
  @TempDir Path dir;

  /**
   * A receiver's check per https://www.standardwebhooks.com: the signed content is {@code
   * id.timestamp.body}, the key is the base64 part of {@code whsec_...}, the header lists {@code
   * v1,<base64 HMAC-SHA256>} entries separated by spaces, any one of which may match; the timestamp
   * must be within the tolerance (5 minutes).
   */
  static final class Verifier {
    private final byte[] key;

    Verifier(String secret) {
      this.key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
    }

    boolean verify(String id, String timestamp, String signatureHeader, byte[] body, Instant now) throws Exception {
      long ts = Long.parseLong(timestamp);
      if (Math.abs(now.getEpochSecond() - ts) > 300) {
        return false;
      }
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      byte[] expected = mac.doFinal(body);
      for (String entry : signatureHeader.split(" ")) {
        String[] parts = entry.split(",", 2);
        if (parts.length == 2 && parts[0].equals("v1")
            && MessageDigest.isEqual(expected, Base64.getDecoder().decode(parts[1]))) {
          return true;
        }
      }
      return false;
    }
  }

  // The test vector published with the Standard Webhooks libraries.
  static final String VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  static final String VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  static final long VECTOR_TS = 1614265330;
  static final String VECTOR_BODY = "{\"test\": 2432232314}";
  static final String VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  @Test
  void theVerifierAndTheSignerAgreeWithThePublishedTestVector() throws Exception {
    byte[] body = VECTOR_BODY.getBytes(StandardCharsets.UTF_8);
    assertThat(new Verifier(VECTOR_SECRET).verify(VECTOR_ID, Long.toString(VECTOR_TS), VECTOR_SIGNATURE, body,
        Instant.ofEpochSecond(VECTOR_TS))).isTrue();
    assertThat(Signer.parse(VECTOR_SECRET).sign(VECTOR_ID, VECTOR_TS, body)).isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void deliveriesAreSignedWithEverySecretDuringRotation() throws Exception {
    String oldSecret = newSecret();
    String newSecret = newSecret();
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().allow("127.0.0.1").clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("signed").channel("http", receiver.url("/in"))
                .option("secrets", oldSecret + " " + newSecret).build())
            .build()) {
      Notice n = herald.enqueue("signed", "{\"amount\":\"12.50\",\"note\":\"caf\u00e9\"}");
      new ManualRunner(herald, clock).runDue();
      assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);

      Receiver.Request r = receiver.requests.getFirst();
      String id = r.header("webhook-id");
      String ts = r.header("webhook-timestamp");
      String sig = r.header("webhook-signature");
      assertThat(id).isEqualTo(n.id().toString());
      assertThat(sig.split(" ")).hasSize(2).allSatisfy(s -> assertThat(s).startsWith("v1,"));

      Instant now = clock.instant();
      assertThat(new Verifier(oldSecret).verify(id, ts, sig, r.bodyBytes(), now)).as("old secret").isTrue();
      assertThat(new Verifier(newSecret).verify(id, ts, sig, r.bodyBytes(), now)).as("new secret").isTrue();
      assertThat(new Verifier(newSecret()).verify(id, ts, sig, r.bodyBytes(), now)).as("other secret").isFalse();
      byte[] tampered = r.body().replace("12.50", "99.50").getBytes(StandardCharsets.UTF_8);
      assertThat(new Verifier(newSecret).verify(id, ts, sig, tampered, now)).as("tampered body").isFalse();
      assertThat(new Verifier(newSecret).verify("other-id", ts, sig, r.bodyBytes(), now)).as("other id").isFalse();
      assertThat(new Verifier(newSecret).verify(id, ts, sig, r.bodyBytes(), now.plusSeconds(600)))
          .as("replayed 10 minutes later").isFalse();
    }
  }

  @Test
  void unsignedWhenNoSecretsAreSet() throws Exception {
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().allowPrivateNetworks(true).clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("plain").channel("http", receiver.url("/in")).build())
            .build()) {
      herald.enqueue("plain", "{}");
      new ManualRunner(herald, clock).runDue();
      assertThat(receiver.requests).singleElement().satisfies(r -> {
        assertThat(r.header("webhook-signature")).isNull();
        assertThat(r.header("webhook-id")).isNotNull();
      });
    }
  }

  @Test
  void extraHeadersGoWithEachRequestButNeitherIntoTheLogNorOverTheChannelsOwn() throws Exception {
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().allow("127.0.0.1").clock(clock)
            .extraHeaders(d -> java.util.Map.of("herald-confirm-url", "https://herald.example/c/" + d.notice().id(),
                "webhook-id", "forged", "Content-Type", "text/plain"))
            .build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("extra").channel("http", receiver.url("/in"))
                .option("full-success-log", "true").build())
            .build()) {
      Notice n = herald.enqueue("extra", "{}");
      new ManualRunner(herald, clock).runDue();
      assertThat(receiver.requests).singleElement().satisfies(r -> {
        assertThat(r.header("herald-confirm-url")).isEqualTo("https://herald.example/c/" + n.id());
        assertThat(r.header("webhook-id")).isEqualTo(n.id().toString());
        assertThat(r.header("content-type")).isEqualTo("application/json");
      });
      String log = herald.operations().find(n.id()).orElseThrow().attempts().getFirst().detail();
      assertThat(log).contains("> herald-confirm-url: (not logged)").doesNotContain("https://herald.example/c/");
    }
  }

  private static String newSecret() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }
}
