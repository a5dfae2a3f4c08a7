package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Document 002's isolation: a receiver that hangs holds at most its own limit of requests, so the
 * engine's delivery slots stay free and another receiver's callbacks stay on time.
 */
class IsolationTest {
  @TempDir Path dir;

  @Test
  void aHungEndpointNeverDelaysAHealthyOne() throws Exception {
    hungBesideHealthy(HttpChannel.builder().allow("127.0.0.0/8").build());
  }

  /** The client's few threads only run its own tasks: requests waiting on a hung receiver hold none. */
  @Test
  void aHungEndpointHoldsNoneOfTheClientsThreads() throws Exception {
    hungBesideHealthy(HttpChannel.builder().allow("127.0.0.0/8").clientThreads(1).build());
  }

  @Test
  void clientThreadsMustBeAtLeastOne() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpChannel.builder().clientThreads(0).build())
        .isInstanceOfSatisfying(dev.herald.InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("clientThreads"));
  }

  private void hungBesideHealthy(HttpChannel http) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (Receiver hung = new Receiver();
        Receiver healthy = new Receiver()) {
      hung.respond(r -> {
        release.await(30, TimeUnit.SECONDS);
        return Receiver.Response.ok("");
      });
      Herald herald = Herald.builder()
          .h2File(dir.resolve("herald-" + System.nanoTime()))
          .channel(http)
          .maxConcurrentDeliveries(8) // without isolation the hung receiver would take all of them
          .shutdownTimeout(Duration.ofSeconds(2))
          .define(NoticeDefinition.builder("slow").channel("http", hung.url("/slow"))
              .option("max-concurrency", "4").option("timeout", "25s").build())
          .define(NoticeDefinition.builder("fast").channel("http", healthy.url("/fast")).build())
          .build()
          .start();
      try {
        List<NoticeRequest> slow = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          slow.add(NoticeRequest.of("slow", "{\"i\":" + i + "}"));
        }
        herald.enqueueAll(slow);
        await().atMost(Duration.ofSeconds(5)).until(() -> hung.inFlight.get() >= 4);

        Instant base = Instant.now().plusMillis(800);
        List<NoticeRequest> fast = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          fast.add(NoticeRequest.of("fast", "{\"i\":" + i + "}").fireAt(base.plusMillis(i * 40L)));
        }
        Map<String, Notice> byId = herald.enqueueAll(fast).stream()
            .collect(Collectors.toMap(n -> n.id().toString(), Function.identity()));

        await().atMost(Duration.ofSeconds(10)).until(() -> healthy.count() == 20);
        for (Receiver.Request r : healthy.requests) {
          Notice n = byId.get(r.header("webhook-id"));
          long late = r.receivedAtMillis() - n.fireAt().toEpochMilli();
          assertThat(late).as("lateness of %s", n.payload()).isBetween(-50L, 1_000L);
        }
        assertThat(hung.inFlight.get()).isEqualTo(4);
        assertThat(hung.maxInFlight.get()).as("the hung endpoint's own limit").isEqualTo(4);
        assertThat(http.endpoint(hung.url("/")).orElseThrow().inFlight()).isEqualTo(4);
      } finally {
        release.countDown();
        herald.close();
      }
    }
  }
}
