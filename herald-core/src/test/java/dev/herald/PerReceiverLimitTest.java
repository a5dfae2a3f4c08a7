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

  /** A channel that says how many it takes at once per receiver gets that many, above the engine's default too. */
  @Test
  @Timeout(60)
  void aChannelsOwnLimitPerReceiverReplacesTheEnginesDefault() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    dev.herald.spi.Channel pipelined = new dev.herald.spi.Channel() {
      @Override
      public String name() {
        return "pipelined";
      }

      @Override
      public java.util.concurrent.CompletionStage<DeliveryResult> deliver(dev.herald.spi.Delivery delivery) {
        mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            slowMayAnswer.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          running.decrementAndGet();
          done.incrementAndGet();
          return DeliveryResult.delivered();
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
      }

      @Override
      public int maxConcurrentPerReceiver(NoticeDefinition definition) {
        return 12;
      }
    };
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .pollInterval(Duration.ofMillis(100))
        .maxConcurrentDeliveries(100)
        .maxConcurrentPerReceiver(4) // for channels without a limit of their own
        .channel(pipelined)
        .define(NoticeDefinition.builder("piped").channel("pipelined", "topic").build())
        .build()
        .start();
    List<NoticeRequest> all = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      all.add(NoticeRequest.of("piped", "{}"));
    }
    herald.enqueueAll(all);
    await().atMost(Duration.ofSeconds(20)).until(() -> running.get() == 12);
    slowMayAnswer.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> done.get() == 30);
    assertThat(mostAtOnce.get()).as("the channel's own limit, not the engine's 4").isEqualTo(12);
  }
}
