package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: concurrency is bounded per receiver, not by a global pool of slots that slow attempts
 * exhaust. A receiver that hangs holds its own places; the others' notices go through meanwhile.
 */
class PerReceiverLimitTest {
  @TempDir Path dir;
  private final CountDownLatch slowMayAnswer = new CountDownLatch(1);
  private final AtomicInteger slowRunning = new AtomicInteger();
  private final AtomicInteger slowMostAtOnce = new AtomicInteger();
  private final AtomicInteger slowDone = new AtomicInteger();
  private final AtomicInteger fastDone = new AtomicInteger();
  private Herald herald;

  @AfterEach
  void tearDown() {
    slowMayAnswer.countDown();
    if (herald != null) {
      herald.close();
    }
  }

  @Test
  @Timeout(60)
  void aHungReceiverHoldsItsOwnPlacesAndTheOthersGoThrough() {
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .pollInterval(Duration.ofMillis(100))
        .maxConcurrentDeliveries(10) // fewer than the slow notices: a global pool alone would be taken whole
        .maxConcurrentPerReceiver(4)
        .define(NoticeDefinition.builder("slow").handler("slow").build())
        .define(NoticeDefinition.builder("fast").handler("fast").build())
        .handler("slow", ctx -> {
          slowMostAtOnce.accumulateAndGet(slowRunning.incrementAndGet(), Math::max);
          try {
            slowMayAnswer.await(30, TimeUnit.SECONDS);
          } finally {
            slowRunning.decrementAndGet();
          }
          slowDone.incrementAndGet();
          return DeliveryResult.delivered();
        })
        .handler("fast", ctx -> {
          fastDone.incrementAndGet();
          return DeliveryResult.delivered();
        })
        .build()
        .start();
    List<NoticeRequest> slow = new ArrayList<>();
    List<NoticeRequest> fast = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      slow.add(NoticeRequest.of("slow", "{}"));
      fast.add(NoticeRequest.of("fast", "{}"));
    }
    herald.enqueueAll(slow); // first: they reach the timer before the fast ones
    herald.enqueueAll(fast);

    await().atMost(Duration.ofSeconds(20)).until(() -> fastDone.get() == 20);
    assertThat(slowDone.get()).as("the slow receiver still hangs").isZero();
    assertThat(slowMostAtOnce.get()).as("its own limit, not more").isEqualTo(4);

    slowMayAnswer.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> slowDone.get() == 20);
    assertThat(slowMostAtOnce.get()).isEqualTo(4);
  }
}
