package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An endpoint's {@code max-concurrency} is a line in the engine, not a refusal: notices beyond it
 * wait for a place and start as places free, none handed to the channel only to be deferred.
 */
class ReceiverLineTest {
  @TempDir Path dir;

  @Test
  void noticesBeyondAnEndpointsLimitWaitInLineInsteadOfBeingDeferred() throws Exception {
    try (Receiver slow = new Receiver()) {
      slow.respond(r -> {
        Thread.sleep(100); // a receiver that takes its time, not a hung one
        return Receiver.Response.ok("");
      });
      Counting http = new Counting(HttpChannel.builder().allow("127.0.0.0/8").build());
      Herald herald = Herald.builder()
          .h2File(dir.resolve("herald"))
          .channel(http)
          .define(NoticeDefinition.builder("slow").channel("http", slow.url("/hook"))
              .option("max-concurrency", "2").build())
          .build()
          .start();
      try {
        List<NoticeRequest> batch = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
          batch.add(NoticeRequest.of("slow", "{\"i\":" + i + "}"));
        }
        herald.enqueueAll(batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> http.delivered.get() == 12);
        // counted where the engine hands attempts over: the receiver's own count may see the next request
        // arrive a moment before its handler counted the previous one out
        assertThat(http.mostAtOnce.get()).as("the endpoint's limit").isEqualTo(2);
        assertThat(http.deferred.get()).as("attempts handed over only to be deferred ('endpoint busy')").isZero();
        assertThat(slow.count()).isEqualTo(12);
      } finally {
        herald.close();
      }
    }
  }

  /** The HTTP channel, counting what it answers. */
  private static final class Counting implements Channel {
    final HttpChannel http;
    final AtomicInteger deferred = new AtomicInteger();
    final AtomicInteger delivered = new AtomicInteger();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();

    Counting(HttpChannel http) {
      this.http = http;
    }

    @Override
    public String name() {
      return http.name();
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      return http.deliver(delivery).whenComplete((r, e) -> {
        running.decrementAndGet();
        if (r != null && r.outcome() == DeliveryResult.Outcome.DEFER) {
          deferred.incrementAndGet();
        } else if (r != null && r.outcome() == DeliveryResult.Outcome.DELIVERED) {
          delivered.incrementAndGet();
        }
      });
    }

    @Override
    public void validate(NoticeDefinition definition) {
      http.validate(definition);
    }

    @Override
    public int maxConcurrentPerReceiver(NoticeDefinition definition) {
      return http.maxConcurrentPerReceiver(definition);
    }

    @Override
    public void close() {
      http.close();
    }
  }
}
