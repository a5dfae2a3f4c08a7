package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.NoticeStatus;
import dev.herald.ReceiverState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** Document 003 through the starter: inline while the receiver is healthy, durable background when not. */
class SyncFirstDeliveryTest {
  @TempDir Path dir;

  /** A receiver that takes its time until released. */
  public static class SlowReceiver {
    final CountDownLatch release = new CountDownLatch(1);

    @NoticeHandlerMethod("slow")
    public boolean take(String payload) throws InterruptedException {
      return release.await(10, TimeUnit.SECONDS);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Receivers {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }

    @Bean
    SlowReceiver slowReceiver() {
      return new SlowReceiver();
    }
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            JacksonAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withUserConfiguration(Receivers.class)
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:file:" + dir.resolve("sync") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.node-id=sync-test",
            "herald.shutdown-timeout=1s",
            "herald.circuit-failure-threshold=2",
            "herald.circuit-open-for=1s",
            "herald.definitions.sms.handler=inbox",
            "herald.definitions.sms.retry=2s", // well above a loaded machine's pauses: "tried inline once" holds
            "herald.definitions.sms.max-attempts=-1",
            "herald.definitions.slow-sms.handler=slow",
            "herald.definitions.slow-sms.retry=300ms");
  }

  @Test
  void healthyReceiverIsDeliveredInlineAndASlowOneIsDeferredThenDelivered() {
    runner().run(ctx -> {
      NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
      Inbox inbox = ctx.getBean(Inbox.class);

      SyncOutcome ok = publisher.publishAndDeliver("sms", new Sms("+100", "hello"), Duration.ofSeconds(5));
      assertThat(ok.status()).isEqualTo(SyncOutcome.Status.DELIVERED);
      assertThat(ok.reason()).isNull();
      assertThat(ok.handle().enqueued().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(inbox.received).containsExactly("{\"to\":\"+100\",\"text\":\"hello\"}");

      long t0 = System.nanoTime();
      SyncOutcome slow = publisher.publishAndDeliver("slow-sms", "{\"slow\":1}", Duration.ofMillis(300));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("waited at most maxWait").isLessThan(Duration.ofSeconds(2));
      assertThat(slow.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      assertThat(slow.reason()).contains("no outcome within 300 ms");
      ctx.getBean(SlowReceiver.class).release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> slow.handle().current().status() == NoticeStatus.SUCCEEDED);
    });
  }

  @Test
  void failingReceiverIsDeferredThenTheCircuitOpensAndInlineDeliveryResumesAfterRecovery() {
    runner().run(ctx -> {
      NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
      Herald herald = ctx.getBean(Herald.class);
      Inbox inbox = ctx.getBean(Inbox.class);
      inbox.down = true;

      SyncOutcome first = publisher.publishAndDeliver("sms", "{\"n\":1}", Duration.ofSeconds(5));
      assertThat(first.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      assertThat(first.reason()).isEqualTo("first attempt failed: java.lang.IllegalStateException: receiver down");
      assertThat(inbox.attemptsOf("{\"n\":1}")).as("tried inline once").isEqualTo(1);
      SyncOutcome second = publisher.publishAndDeliver("sms", "{\"n\":2}", Duration.ofSeconds(5));
      assertThat(second.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      await().atMost(Duration.ofSeconds(5)).until(() -> herald.receiverState("sms") == ReceiverState.OPEN);

      long t0 = System.nanoTime();
      SyncOutcome whileOpen = publisher.publishAndDeliver("sms", "{\"n\":3}", Duration.ofSeconds(5));
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(whileOpen.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      assertThat(whileOpen.reason()).contains("failing or rate-limited");
      assertThat(took).as("deferred at once").isLessThan(Duration.ofMillis(500));
      assertThat(whileOpen.handle().current().status()).as("stored durably").isNotNull();

      inbox.down = false;
      await().atMost(Duration.ofSeconds(10)).until(() ->
          inbox.received.containsAll(java.util.List.of("{\"n\":1}", "{\"n\":2}", "{\"n\":3}")));
      // after the open period, probes let a growing share through inline until the circuit closes
      int[] i = {100};
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
        publisher.publishAndDeliver("sms", "{\"n\":" + i[0]++ + "}", Duration.ofSeconds(2));
        return herald.receiverState("sms") == ReceiverState.CLOSED;
      });
      SyncOutcome recovered = publisher.publishAndDeliver("sms", "{\"n\":999}", Duration.ofSeconds(5));
      assertThat(recovered.status()).isEqualTo(SyncOutcome.Status.DELIVERED);
      assertThat(inbox.attemptsOf("{\"n\":999}")).isEqualTo(1);
    });
  }

  /**
   * Document 003: while the receiver's circuit is open, deferred requests wait for the background
   * instead of being sent at once. The core (at 5b6df03) stores the deferred notice due now, and the
   * engine fires it from memory right after the call's own commit, so the failing receiver is called
   * anyway. Enable once {@code deliverNow} defers such notices to the end of the open period.
   */
  @Test
  void whileTheCircuitIsOpenADeferredNoticeIsNotSentBeforeTheOpenPeriodEnds() {
    runner().run(ctx -> {
      NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
      Herald herald = ctx.getBean(Herald.class);
      Inbox inbox = ctx.getBean(Inbox.class);
      inbox.down = true;
      publisher.publishAndDeliver("sms", "{\"o\":1}", Duration.ofSeconds(5));
      publisher.publishAndDeliver("sms", "{\"o\":2}", Duration.ofSeconds(5));
      await().atMost(Duration.ofSeconds(5)).until(() -> herald.receiverState("sms") == ReceiverState.OPEN);
      SyncOutcome whileOpen = publisher.publishAndDeliver("sms", "{\"o\":3}", Duration.ofSeconds(5));
      assertThat(whileOpen.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1))
          .until(() -> inbox.attemptsOf("{\"o\":3}") == 0);
      inbox.down = false;
      await().atMost(Duration.ofSeconds(10)).until(() -> inbox.received.contains("{\"o\":3}"));
    });
  }

  @Test
  void insideATransactionTheCallDefersToTheCommit() {
    runner().run(ctx -> {
      NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
      Inbox inbox = ctx.getBean(Inbox.class);
      SyncOutcome out = ctx.getBean(TransactionTemplate.class).execute(s -> {
        SyncOutcome o = publisher.publishAndDeliver("sms", "{\"in-tx\":1}", Duration.ofSeconds(5));
        assertThat(inbox.received).as("nothing before the commit").isEmpty();
        return o;
      });
      assertThat(out.status()).isEqualTo(SyncOutcome.Status.DEFERRED);
      assertThat(out.reason()).contains("inside a transaction");
      await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.contains("{\"in-tx\":1}"));
    });
  }

  public record Sms(String to, String text) {}
}
