package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.spi.NoticeStore;
import dev.herald.testing.SettableClock;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A heartbeat and an abandonment racing: the poller gives up the incarnation (a claim's commit in
 * doubt) while a heartbeat of the old token is on its way. The beat must not report a lapse of the
 * new token, nor replace it: what was held was dropped by the abandoning caller already.
 */
class LivenessTest {
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final CountDownLatch heartbeatSent = new CountDownLatch(1);
  private final CountDownLatch heartbeatMayLand = new CountDownLatch(1);

  /** The node table's three statements; the heartbeat waits until the test lets it land. */
  private NoticeStore store() {
    return (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {NoticeStore.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "registerNode", "forgetNode" -> {
            calls.add(method.getName() + " " + args[0]);
            yield null;
          }
          case "heartbeat" -> {
            calls.add("heartbeat " + args[0]);
            heartbeatSent.countDown();
            heartbeatMayLand.await(10, TimeUnit.SECONDS);
            yield true;
          }
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void aBeatThatLandsAfterAnAbandonmentReportsNoLapseAndKeepsTheNewToken() throws Exception {
    SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    Liveness liveness = new Liveness(store(), clock, "node-a", Duration.ofSeconds(20));
    liveness.register();
    String first = liveness.token();

    CompletableFuture<Boolean> beat = CompletableFuture.supplyAsync(liveness::beat);
    assertThat(heartbeatSent.await(10, TimeUnit.SECONDS)).isTrue();
    liveness.abandon(); // the poller, meanwhile
    String second = liveness.token();
    heartbeatMayLand.countDown();

    assertThat(beat.get(10, TimeUnit.SECONDS)).as("no lapse to report: nothing is held under the new token").isTrue();
    assertThat(liveness.token()).isEqualTo(second).isNotEqualTo(first);
    assertThat(liveness.mayStart(second, clock.millis())).as("not registered yet: nothing may start").isFalse();
    assertThat(calls).containsExactly("registerNode " + first, "heartbeat " + first);

    assertThat(liveness.beat()).isTrue(); // the next beat registers the new token
    assertThat(calls).last().isEqualTo("registerNode " + second);
    assertThat(liveness.mayStart(second, clock.millis())).isTrue();
  }

  @Test
  void aBeatThatFindsItsTokenLapsedTakesANewOneAndSaysSo() {
    SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    heartbeatMayLand.countDown();
    Liveness liveness = new Liveness(store(), clock, "node-a", Duration.ofSeconds(20));
    liveness.register();
    String first = liveness.token();
    clock.advance(Duration.ofSeconds(16)); // past the fence (3/4 of the node timeout) without a beat

    assertThat(liveness.beat()).isFalse();
    assertThat(liveness.token()).isNotEqualTo(first);
    assertThat(calls).containsExactly("registerNode " + first, "heartbeat " + first,
        "registerNode " + liveness.token(), "forgetNode " + first);
    assertThat(liveness.mayStart(liveness.token(), clock.millis())).isTrue();
    assertThat(liveness.mayStart(first, clock.millis())).isFalse();
  }
}
