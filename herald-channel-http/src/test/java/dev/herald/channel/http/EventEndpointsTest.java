package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventRequest;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event endpoints over the webhook channel, against real receivers on loopback: each endpoint signs
 * with its own secrets (made for it, rotated with the previous one kept), sends its own headers (a
 * secret one masked in the attempt log), and takes its events with its own retries.
 */
class EventEndpointsTest {
  @TempDir Path dir;

  private final SettableClock clock = SettableClock.startingNow();
  private Herald herald;
  private HttpChannel http;
  private ManualRunner runner;

  @BeforeEach
  void start() {
    http = HttpChannel.builder().allow("127.0.0.1").clock(clock).build();
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).channel(http).build();
    runner = new ManualRunner(herald, clock);
    herald.events().saveType(EventType.of("invoice.issued", null, null));
  }

  @AfterEach
  void close() {
    herald.close();
  }

  @Test
  void eachEndpointSignsWithItsOwnSecretAndSendsItsOwnHeaders() throws Exception {
    try (Receiver acme = new Receiver(); Receiver globex = new Receiver()) {
      EventEndpoint a = herald.events().saveEndpoint(EventEndpoint.builder("acme").url(acme.url("/in"))
          .subscribe("invoice.issued").header("X-Partner", "acme").secretHeader("X-Api-Key", "k-123-secret")
          .option("full-success-log", "true").build());
      EventEndpoint g = herald.events().saveEndpoint(EventEndpoint.builder("globex").url(globex.url("/in"))
          .subscribe("invoice.issued").build());
      assertThat(a.secrets()).singleElement().satisfies(s -> assertThat(s).startsWith("whsec_"));
      assertThat(g.secrets()).singleElement().isNotEqualTo(a.secrets().getFirst());

      PublishedEvent e = herald.events().publish(EventRequest.of("invoice.issued", "{\"invoice\": 7}"));
      runner.runDue();

      Receiver.Request got = acme.requests.getFirst();
      assertThat(got.header("x-partner")).isEqualTo("acme");
      assertThat(got.header("x-api-key")).isEqualTo("k-123-secret");
      assertThat(new SigningTest.Verifier(a.secrets().getFirst()).verify(got.header("webhook-id"),
          got.header("webhook-timestamp"), got.header("webhook-signature"), got.bodyBytes(), clock.instant())).isTrue();
      assertThat(new SigningTest.Verifier(g.secrets().getFirst()).verify(got.header("webhook-id"),
          got.header("webhook-timestamp"), got.header("webhook-signature"), got.bodyBytes(), clock.instant()))
          .as("globex's secret does not sign acme's requests").isFalse();
      assertThat(globex.requests.getFirst().header("x-api-key")).isNull();

      String log = herald.operations().find(e.deliveries().getFirst().noticeId()).orElseThrow().attempts().getFirst()
          .detail();
      assertThat(log).contains("> x-partner: acme", "> x-api-key: ****").doesNotContain("k-123-secret");
      assertThat(herald.events().find(null, e.event().id()).orElseThrow().taken()).isEqualTo(2);
    }
  }

  @Test
  void aRotatedSecretSignsBesideThePreviousOneUntilTheOldOnesAreDropped() throws Exception {
    try (Receiver acme = new Receiver()) {
      String first = herald.events().saveEndpoint(EventEndpoint.builder("acme").url(acme.url("/in"))
          .subscribe("invoice.issued").build()).secrets().getFirst();
      String second = herald.events().rotateSecret(null, "acme");
      assertThat(herald.events().findEndpoint(null, "acme").orElseThrow().secrets()).containsExactly(second, first);

      herald.events().publish(EventRequest.of("invoice.issued", "{}"));
      runner.runDue();
      Receiver.Request got = acme.requests.getFirst();
      for (String secret : new String[] {first, second}) {
        assertThat(new SigningTest.Verifier(secret).verify(got.header("webhook-id"), got.header("webhook-timestamp"),
            got.header("webhook-signature"), got.bodyBytes(), clock.instant())).isTrue();
      }

      herald.events().dropOldSecrets(null, "acme");
      herald.events().publish(EventRequest.of("invoice.issued", "{}"));
      runner.runDue();
      Receiver.Request later = acme.requests.get(1);
      assertThat(new SigningTest.Verifier(first).verify(later.header("webhook-id"), later.header("webhook-timestamp"),
          later.header("webhook-signature"), later.bodyBytes(), clock.instant())).isFalse();
      assertThat(new SigningTest.Verifier(second).verify(later.header("webhook-id"), later.header("webhook-timestamp"),
          later.header("webhook-signature"), later.bodyBytes(), clock.instant())).isTrue();
    }
  }

  @Test
  void theReadmeExampleDeliversTheEventToAcme() throws Exception {
    try (Receiver acme = new Receiver()) {
      PublishedEvent paid = EventsReadmeExample.publish(herald, acme.url("/hooks/herald"), "k-42");
      assertThat(paid.deliveries()).singleElement().satisfies(d -> assertThat(d.endpointId()).isEqualTo("acme-erp"));
      runner.runDue();
      assertThat(acme.requests).singleElement().satisfies(r -> {
        assertThat(r.header("x-api-key")).isEqualTo("k-42");
        assertThat(r.body()).isEqualTo("{\"order\": {\"id\": 42, \"total\": 9.5, \"country\": \"DE\"}}");
      });
      assertThat(herald.events().find(null, paid.event().id()).orElseThrow().taken()).isEqualTo(1);
    }
  }

  @Test
  void theChannelRefusesHeadersItSetsItselfAndUrlsTheGuardRefuses() {
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme")
        .url("https://acme.example/in").header("Webhook-Signature", "forged").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("options.header.webhook-signature");
          assertThat(e.reason()).contains("the channel's own");
        });
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme")
        .url("http://169.254.169.254/latest").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    assertThat(herald.events().endpoints(null)).isEmpty();
  }
}
