package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.ReceiverState;
import dev.herald.SyncDelivery;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** deliverNow's circuit is per receiver (origin), not per definition: one merchant's 429 defers only that merchant. */
class SyncFirstHttpTest {
  @TempDir Path dir;

  @Test
  void aRateLimitedMerchantDoesNotDeferTheOtherMerchantsOfItsDefinition() throws Exception {
    try (Receiver limited = new Receiver().respond(r -> Receiver.Response.status(429).header("Retry-After", "60"));
        Receiver healthy = new Receiver();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .channel(HttpChannel.builder().allow("127.0.0.1").build())
            .circuitOpenFor(Duration.ofSeconds(30))
            .define(NoticeDefinition.builder("paid").channel("http", limited.url("/notify")).build())
            .build()
            .start()) {
      SyncDelivery first = herald.deliverNow(NoticeRequest.of("paid", "{}"), Duration.ofSeconds(5));
      assertThat(first.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(first.reason()).contains("429");
      assertThat(herald.receiverState("paid")).isEqualTo(ReceiverState.OPEN);

      SyncDelivery other = herald.deliverNow(NoticeRequest.of("paid", "{}").target(healthy.url("/notify")),
          Duration.ofSeconds(5));
      assertThat(other.status()).as(other.reason()).isEqualTo(SyncDelivery.Status.DELIVERED);
      assertThat(healthy.count()).isEqualTo(1);

      SyncDelivery samePlace = herald.deliverNow(NoticeRequest.of("paid", "{}").target(limited.url("/elsewhere")),
          Duration.ofSeconds(5));
      assertThat(samePlace.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(samePlace.reason()).isEqualTo("receiver http://127.0.0.1:" + limited.port()
          + " is failing or rate-limited; delivering in the background");
      assertThat(limited.count()).as("not called while its circuit is open").isEqualTo(1);
    }
  }
}
