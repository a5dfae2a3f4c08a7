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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An endpoint's circuit, through a real engine: opens on failures, defers without calls, a probe closes it. */
class CircuitTest {
  @TempDir Path dir;

  @Test
  void opensAfterFailuresDefersWithoutCallsThenAProbeClosesIt() throws Exception {
    SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    AtomicBoolean healthy = new AtomicBoolean();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().allow("127.0.0.1").clock(clock)
            .circuitFailureThreshold(3).circuitOpenFor(Duration.ofSeconds(30)).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("cb").channel("http", receiver.url("/cb")).retry("1s").maxAttempts(20)
                .build())
            .build()) {
      receiver.respond(r -> healthy.get() ? Receiver.Response.ok("") : Receiver.Response.status(500));
      ManualRunner runner = new ManualRunner(herald, clock);

      Notice a = herald.enqueue("cb", "{\"n\":\"a\"}");
      runner.runDue();
      runner.advanceAndRun(Duration.ofSeconds(1));
      runner.advanceAndRun(Duration.ofSeconds(1));
      assertThat(receiver.count()).isEqualTo(3);
      Instant openedAt = clock.instant();
      EndpointStatus open = http.endpoint(receiver.url("/")).orElseThrow();
      assertThat(open.circuit()).isEqualTo(EndpointStatus.Circuit.OPEN);
      assertThat(open.consecutiveFailures()).isEqualTo(3);
      assertThat(open.openUntil()).isEqualTo(openedAt.plusSeconds(30));
      assertThat(open.lastFailure()).isEqualTo("HTTP 500 Internal Server Error");
      String origin = HttpChannel.endpointOf(receiver.url("/"));
      assertThat(http.peers()).singleElement().satisfies(p -> {
        assertThat(p.peer()).isEqualTo(origin);
        assertThat(p.kind()).isEqualTo(dev.herald.spi.PeerStatus.Kind.ENDPOINT);
        assertThat(p.state()).as("down with its circuit").isEqualTo(dev.herald.spi.PeerStatus.State.DOWN);
        assertThat(p.since()).isEqualTo(openedAt);
        assertThat(p.lastError()).isEqualTo("HTTP 500 Internal Server Error");
      });

      Notice b = herald.enqueue("cb", "{\"n\":\"b\"}");
      runner.runDue();
      NoticeDetail deferred = herald.operations().find(b.id()).orElseThrow();
      assertThat(deferred.notice().status()).isEqualTo(NoticeStatus.PENDING);
      assertThat(deferred.notice().attempts()).isZero();
      assertThat(deferred.notice().nextAttemptAt()).isEqualTo(openedAt.plusSeconds(30));
      assertThat(deferred.attempts()).as("a deferral is not an attempt").isEmpty();

      runner.advanceAndRun(Duration.ofSeconds(1)); // a's retry comes due: deferred too
      assertThat(attempts(herald, a.id())).isEqualTo(3);
      assertThat(herald.operations().find(a.id()).orElseThrow().notice().nextAttemptAt())
          .isEqualTo(openedAt.plusSeconds(30));
      assertThat(receiver.count()).as("no calls while open").isEqualTo(3);

      healthy.set(true);
      runner.advanceAndRun(Duration.ofSeconds(29));
      runner.runDue();
      assertThat(herald.operations().find(a.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(herald.operations().find(b.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(attempts(herald, b.id())).isEqualTo(1);
      assertThat(receiver.count()).isEqualTo(5);
      assertThat(http.endpoint(receiver.url("/")).orElseThrow().circuit()).isEqualTo(EndpointStatus.Circuit.CLOSED);
      assertThat(http.peers().getFirst().state()).isEqualTo(dev.herald.spi.PeerStatus.State.UP);
    }
  }

  private static int attempts(Herald herald, UUID id) {
    return herald.operations().find(id).orElseThrow().attempts().size();
  }
}
