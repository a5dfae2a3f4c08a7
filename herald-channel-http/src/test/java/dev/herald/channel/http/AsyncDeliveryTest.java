package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Delivery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An attempt is a chain of callbacks: a slow receiver holds as many requests in flight as its endpoint
 * allows, on one I/O thread, while another receiver's deliveries complete at once.
 */
class AsyncDeliveryTest {
  private static final int SLOW_IN_FLIGHT = 200;

  @Test
  void aSlowReceiverHoldsManyRequestsInFlightWithoutHoldingBackAnother() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (Receiver slow = new Receiver();
        Receiver fast = new Receiver();
        HttpChannel http = HttpChannel.builder().allow("127.0.0.1").clientThreads(1).build()) {
      slow.respond(r -> {
        release.await(30, TimeUnit.SECONDS);
        return Receiver.Response.ok("");
      });
      NoticeDefinition slowly = NoticeDefinition.builder("slow").channel("http", slow.url("/slow"))
          .option("max-concurrency", Integer.toString(SLOW_IN_FLIGHT)).option("timeout", "25s").build();
      NoticeDefinition quickly = NoticeDefinition.builder("fast").channel("http", fast.url("/fast")).build();

      List<CompletableFuture<DeliveryResult>> waiting = new ArrayList<>();
      for (int i = 0; i < SLOW_IN_FLIGHT; i++) {
        waiting.add(deliver(http, slowly));
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> slow.inFlight.get() == SLOW_IN_FLIGHT);
      assertThat(deliver(http, slowly).get(5, TimeUnit.SECONDS).outcome())
          .as("one more than the endpoint's limit").isEqualTo(DeliveryResult.Outcome.DEFER);

      for (int i = 0; i < 20; i++) {
        assertThat(deliver(http, quickly).get(2, TimeUnit.SECONDS).outcome()).isEqualTo(DeliveryResult.Outcome.DELIVERED);
      }
      assertThat(waiting).noneMatch(CompletableFuture::isDone);

      release.countDown();
      for (CompletableFuture<DeliveryResult> f : waiting) {
        assertThat(f.get(20, TimeUnit.SECONDS).outcome()).isEqualTo(DeliveryResult.Outcome.DELIVERED);
      }
      assertThat(slow.maxInFlight.get()).isEqualTo(SLOW_IN_FLIGHT);
    } finally {
      release.countDown();
    }
  }

  private static CompletableFuture<DeliveryResult> deliver(HttpChannel http, NoticeDefinition d) {
    Instant t = Instant.now();
    Notice n = new Notice(UUID.randomUUID(), d.name(), "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t,
        t, null, null);
    return http.deliver(new Delivery(n, d, 1)).toCompletableFuture();
  }
}
