package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An endpoint failing without a success for disableAfter is disabled: its notices wait, not DEAD, until enabled. */
class DisableTest {
  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final List<EndpointStatus> alerts = new CopyOnWriteArrayList<>();
  private Receiver receiver;
  private HttpChannel http;
  private Herald herald;

  @AfterEach
  void tearDown() {
    herald.close();
    http.close();
    receiver.close();
  }

  @Test
  void aFailingEndpointIsDisabledItsNoticesWaitAndAnOperatorEnablesIt() throws Exception {
    receiver = new Receiver().respond(r -> Receiver.Response.status(500));
    http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).disableAfter(Duration.ofHours(1))
        .disabledRecheck(Duration.ofMinutes(1)).circuitOpenFor(Duration.ofSeconds(30))
        .endpointListener(new EndpointListener() {
          @Override
          public void onDisabled(EndpointStatus endpoint) {
            alerts.add(endpoint);
          }
        }).build();
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).nodeId("test-node").channel(http)
        .define(NoticeDefinition.builder("cb").channel("http", receiver.url("/hook")).retry("10m").maxAttempts(8).build())
        .build();
    ManualRunner runner = new ManualRunner(herald, clock);

    Notice n = herald.enqueue("cb", "{}");
    for (int i = 0; i < 7; i++) { // attempts at 0, 10m, ... 60m: the last one is an hour after the first failure
      runner.runDue();
      clock.advance(Duration.ofMinutes(10));
    }
    assertThat(alerts).singleElement().satisfies(s -> {
      assertThat(s.disabled()).isTrue();
      assertThat(s.disabledReason()).contains("failing without a success since 2026-01-01T00:00:00Z")
          .contains("HTTP 500");
    });
    NoticeDetail d = detail(n);
    assertThat(d.attempts()).hasSize(7);

    // Disabled: the notice waits, with no request and no attempt, whatever its remaining attempts.
    int requests = receiver.count();
    for (int i = 0; i < 5; i++) {
      runner.runDue();
      clock.advance(Duration.ofMinutes(10));
    }
    assertThat(receiver.count()).isEqualTo(requests);
    assertThat(detail(n).attempts()).hasSize(7);
    assertThat(detail(n).notice().status()).isNotEqualTo(NoticeStatus.DEAD);
    assertThat(http.endpoint(receiver.url("/")).orElseThrow().disabled()).isTrue();

    receiver.respond(r -> Receiver.Response.ok(""));
    assertThat(http.enable(receiver.url("/x"))).isTrue();
    assertThat(http.endpoint(receiver.url("/")).orElseThrow().circuit()).isEqualTo(EndpointStatus.Circuit.CLOSED);
    clock.advance(Duration.ofMinutes(1));
    runner.runDue();
    assertThat(detail(n).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(detail(n).attempts()).hasSize(8);
  }

  @Test
  void aStoredDisabledFlagIsRestoredAfterARestart() throws Exception {
    receiver = new Receiver();
    http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).maxRate(receiver.url("/"), "5/s").build();
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).nodeId("test-node").channel(http)
        .define(NoticeDefinition.builder("cb").channel("http", receiver.url("/hook")).build())
        .build();
    assertThat(http.disable(receiver.url("/"), "maintenance", clock.instant())).isTrue();
    Notice n = herald.enqueue("cb", "{}");
    ManualRunner runner = new ManualRunner(herald, clock);
    runner.runDue();
    assertThat(receiver.count()).isZero();
    assertThat(detail(n).attempts()).isEmpty();
    assertThat(http.endpoints()).singleElement().satisfies(s -> {
      assertThat(s.disabled()).isTrue();
      assertThat(s.disabledReason()).isEqualTo("maintenance");
    });
    assertThat(http.enable(receiver.url("/"))).isTrue();
    clock.advance(Duration.ofMinutes(1));
    for (int i = 0; i < 5 && detail(n).notice().status() != NoticeStatus.SUCCEEDED; i++) {
      runner.runDue(); // a turn under the rate limit may be a few hundred ms away
      Thread.sleep(250);
      clock.advance(Duration.ofMillis(250));
    }
    assertThat(detail(n).notice().status()).as(detail(n).toString()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  private NoticeDetail detail(Notice n) {
    return herald.operations().find(n.id()).orElseThrow();
  }
}
