package dev.herald.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.spi.PeerStatus;
import dev.herald.spi.PeerStatus.Kind;
import dev.herald.spi.PeerStatus.State;
import dev.herald.testing.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One WARN line per change of a peer's state, never one per attempt; the counts in them. */
class PeerHealthTest {
  final SettableClock clock = SettableClock.startingNow();
  final List<String> lines = new ArrayList<>();

  @Test
  void aBrokerDownForTenMinutesUnderLoadIsThreeLinesWithTheCounts() {
    PeerHealth health = new PeerHealth("amqp", Kind.BROKER, clock, 1, Duration.ofMinutes(5), lines::add);
    health.register("main", "amqp://rabbit:5672/orders");
    assertThat(health.status("main").state()).isEqualTo(State.UNKNOWN);
    health.succeeded("main");
    assertThat(lines).isEmpty();

    health.unreachable("main", "connection lost: Connection reset\n\tat ...");
    for (int second = 0; second < 600; second++) { // ten failed attempts a second for ten minutes
      for (int i = 0; i < 10; i++) {
        health.failed("main", "broker 'main' unreachable: ConnectException: Connection refused");
      }
      clock.advance(Duration.ofSeconds(1));
    }
    PeerStatus down = health.status("main");
    assertThat(down.state()).isEqualTo(State.DOWN);
    assertThat(down.failures()).isEqualTo(6000);
    assertThat(down.downFor(clock.instant())).isEqualTo(Duration.ofMinutes(10));
    health.succeeded("main");

    assertThat(lines).as("down, still down after 5 minutes, up: not 6,000 lines").hasSize(3);
    assertThat(lines.get(0)).isEqualTo("Herald amqp broker 'main' (amqp://rabbit:5672/orders) is DOWN: connection lost:"
        + " Connection reset");
    assertThat(lines.get(1)).contains("still DOWN since", "(5m 0s); 3001 failed attempt(s) since; last error: broker"
        + " 'main' unreachable: ConnectException: Connection refused");
    assertThat(lines.get(2)).isEqualTo("Herald amqp broker 'main' (amqp://rabbit:5672/orders) is UP again after"
        + " 10m 0s DOWN; 6000 failed attempt(s) meanwhile");
    assertThat(health.status("main").state()).isEqualTo(State.UP);
    assertThat(health.status("main").failures()).isZero();
  }

  @Test
  void anEndpointGoesDownOnlyAfterItsThresholdOfFailuresInARow() {
    PeerHealth health = new PeerHealth("http", Kind.ENDPOINT, clock, 3, Duration.ofMinutes(5), lines::add);
    health.failed("https://shop.example:443", "HTTP 503");
    health.failed("https://shop.example:443", "HTTP 503");
    health.succeeded("https://shop.example:443");
    health.failed("https://shop.example:443", "HTTP 503");
    health.failed("https://shop.example:443", "HTTP 503");
    assertThat(health.status("https://shop.example:443").state()).isEqualTo(State.UP);
    assertThat(lines).isEmpty();
    health.failed("https://shop.example:443", "HTTP 502");
    assertThat(health.status("https://shop.example:443").state()).isEqualTo(State.DOWN);
    assertThat(lines).singleElement().asString()
        .isEqualTo("Herald http endpoint 'https://shop.example:443' is DOWN: HTTP 502 (3 failed attempts in a row)");
    assertThat(health.all()).extracting(PeerStatus::peer).containsExactly("https://shop.example:443");
  }

  @Test
  void manyQuietEndpointsAreForgottenButNotTheOnesDown() {
    PeerHealth health = new PeerHealth("http", Kind.ENDPOINT, clock, 1, Duration.ofMinutes(5), lines::add);
    health.failed("https://down.example:443", "timeout");
    for (int i = 0; i < PeerHealth.MAX_PEERS + 5; i++) {
      health.succeeded("https://e" + i + ".example:443");
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(health.all().size()).isLessThanOrEqualTo(PeerHealth.MAX_PEERS);
    assertThat(health.status("https://down.example:443").state()).isEqualTo(State.DOWN);
  }
}
