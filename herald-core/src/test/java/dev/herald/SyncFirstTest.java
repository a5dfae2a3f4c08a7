package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Document 003: deliver inline while the receiver is healthy, fall back to the background when it is not. */
class SyncFirstTest {
  @TempDir Path dir;
  private final AtomicBoolean receiverUp = new AtomicBoolean(true);
  private final AtomicInteger calls = new AtomicInteger();
  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private Herald herald;

  @BeforeEach
  void setUp() {
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .pollInterval(Duration.ofMillis(100))
        .circuitFailureThreshold(3)
        .circuitOpenFor(Duration.ofMillis(500))
        .define(NoticeDefinition.builder("sms").handler("sms").retry("200ms").unlimitedAttempts().build())
        .handler("sms", ctx -> {
          calls.incrementAndGet();
          if (!receiverUp.get()) {
            throw new IllegalStateException("provider timeout");
          }
          delivered.add(ctx.payload());
          return DeliveryResult.delivered();
        })
        .build()
        .start();
  }

  @AfterEach
  void tearDown() {
    herald.close();
  }

  private SyncDelivery send(int i) {
    return herald.deliverNow(NoticeRequest.of("sms", "{\"i\":" + i + "}"), Duration.ofSeconds(5));
  }

  @Test
  void healthyReceiverIsDeliveredInline() {
    SyncDelivery r = send(1);
    assertThat(r.status()).isEqualTo(SyncDelivery.Status.DELIVERED);
    assertThat(r.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(delivered).containsExactly("{\"i\":1}");
  }

  @Test
  void failingReceiverDefersThenOpensTheCircuitAndRecoversGraduallyWithoutLosingAnything() {
    receiverUp.set(false);
    SyncDelivery first = send(1);
    assertThat(first.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
    assertThat(first.reason()).contains("provider timeout");

    await().atMost(Duration.ofSeconds(5)).until(() -> herald.receiverState("sms") == ReceiverState.OPEN);
    int before = calls.get();
    SyncDelivery whileOpen = send(2);
    assertThat(whileOpen.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
    assertThat(whileOpen.reason()).contains("failing or rate-limited");
    assertThat(whileOpen.notice().status()).as("stored durably for the background").isNotNull();

    receiverUp.set(true);
    // the background retries deliver both; successes after the open period close the circuit step by step
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.containsAll(List.of("{\"i\":1}", "{\"i\":2}")));
    assertThat(calls.get()).isGreaterThan(before);
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      send(100 + calls.get());
      return herald.receiverState("sms") == ReceiverState.CLOSED;
    });
    assertThat(send(999).status()).isEqualTo(SyncDelivery.Status.DELIVERED);
  }

  @Test
  void rateLimitedReceiverOpensTheCircuitAtOnce() {
    Herald limited = Herald.builder()
        .h2File(dir.resolve("limited"))
        .circuitOpenFor(Duration.ofSeconds(30))
        .define(NoticeDefinition.builder("api").handler("api").build())
        .handler("api", ctx -> DeliveryResult.retryAfter(Duration.ofSeconds(60), "429 Too Many Requests"))
        .build()
        .start();
    try (limited) {
      SyncDelivery r = limited.deliverNow(NoticeRequest.of("api", "{}"), Duration.ofSeconds(5));
      assertThat(r.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(r.notice().nextAttemptAt()).isAfterOrEqualTo(r.notice().lastAttemptAt().plusSeconds(60));
      assertThat(limited.receiverState("api")).isEqualTo(ReceiverState.OPEN);
    }
  }

  @Test
  void aRateLimitedTargetDefersOnlyItselfNotOtherTargetsOfTheSameDefinition() {
    // the local channel's target is the handler's name: one definition, two receivers
    Herald merchants = Herald.builder()
        .h2File(dir.resolve("merchants"))
        .circuitOpenFor(Duration.ofSeconds(30))
        .define(NoticeDefinition.builder("paid").handler("merchant-a").build())
        .handler("merchant-a", ctx -> DeliveryResult.retryAfter(Duration.ofSeconds(60), "429 Too Many Requests"))
        .handler("merchant-b", ctx -> DeliveryResult.delivered())
        .build()
        .start();
    try (merchants) {
      SyncDelivery a = merchants.deliverNow(NoticeRequest.of("paid", "{}"), Duration.ofSeconds(5));
      assertThat(a.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(merchants.receiverState("paid")).as("the definition's own target").isEqualTo(ReceiverState.OPEN);

      SyncDelivery b = merchants.deliverNow(NoticeRequest.of("paid", "{}").target("merchant-b"), Duration.ofSeconds(5));
      assertThat(b.status()).as(b.reason()).isEqualTo(SyncDelivery.Status.DELIVERED);

      SyncDelivery again = merchants.deliverNow(NoticeRequest.of("paid", "{}").target("merchant-a"), Duration.ofSeconds(5));
      assertThat(again.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(again.reason()).contains("failing or rate-limited");
    }
  }

  @Test
  void outcomeOfCompletesAfterTheFirstAttemptAndAtOnceForAnAttemptedNotice() throws Exception {
    Notice n = herald.enqueue("sms", "{\"await\":1}");
    Notice after = herald.outcomeOf(n.id()).get(5, TimeUnit.SECONDS);
    assertThat(after.status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(after.attempts()).isEqualTo(1);
    assertThat(herald.outcomeOf(n.id()).get(1, TimeUnit.SECONDS).status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void noticeRolledBackToASavepointIsNeverDeliveredThoughTheTransactionCommits() {
    herald.inTransaction(tx -> {
      Savepoint sp = tx.connection().setSavepoint();
      tx.enqueue("sms", "{\"undone\":true}");
      tx.connection().rollback(sp);
      tx.enqueue("sms", "{\"kept\":true}");
      return null;
    });
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.contains("{\"kept\":true}"));
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> delivered.size() == 1);
    assertThat(delivered).containsExactly("{\"kept\":true}");
  }

  @Test
  void aReceiverThatSlowsDownOpensTheCircuitThoughItStillAnswers() throws Exception {
    java.util.concurrent.CountDownLatch slowDown = new java.util.concurrent.CountDownLatch(1);
    Herald slowing = Herald.builder()
        .h2File(dir.resolve("slowing"))
        .circuitOpenFor(Duration.ofSeconds(30))
        .circuitSlowCalls(Duration.ofMillis(100), 0.5, 10, 3)
        .define(NoticeDefinition.builder("quote").handler("quote").build())
        .handler("quote", ctx -> {
          if (slowDown.getCount() == 0) {
            // the receiver's own slowness, not the test waiting: every answer takes 150 ms
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(150);
          }
          return DeliveryResult.delivered();
        })
        .build()
        .start();
    try (slowing) {
      for (int i = 0; i < 3; i++) {
        assertThat(slowing.deliverNow(NoticeRequest.of("quote", "{}"), Duration.ofSeconds(5)).status())
            .isEqualTo(SyncDelivery.Status.DELIVERED);
      }
      assertThat(slowing.receiverState("quote")).isEqualTo(ReceiverState.CLOSED);
      slowDown.countDown();
      for (int i = 0; i < 3; i++) {
        assertThat(slowing.deliverNow(NoticeRequest.of("quote", "{}"), Duration.ofSeconds(5)).status())
            .as("slow, but still delivered inline").isEqualTo(SyncDelivery.Status.DELIVERED);
      }
      // counted from the first slow one: 3 of 3 at the minimum of 3; callers are no longer held by a slow receiver
      assertThat(slowing.receiverState("quote")).isEqualTo(ReceiverState.OPEN);
      SyncDelivery deferred = slowing.deliverNow(NoticeRequest.of("quote", "{}"), Duration.ofSeconds(5));
      assertThat(deferred.status()).isEqualTo(SyncDelivery.Status.DEFERRED);
      assertThat(deferred.reason()).contains("failing or rate-limited");
    }
  }
}
