package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.AlertEvent;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.Recorder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Definitions with {@code confirmWithin}: a delivery counts once confirmed; unconfirmed, it is
 * delivered again after the timeout, within the definition's attempt budget.
 */
class ConfirmationTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();
  private final Recorder recorder = new Recorder();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private Herald.Builder builder(NoticeDefinition definition, Deliveries.Body body) {
    return Herald.builder()
        .h2File(dir.resolve("herald"))
        .nodeId("n1")
        .pollInterval(Duration.ofMillis(100))
        .lookAhead(Duration.ofSeconds(5))
        .lease(Duration.ofSeconds(30))
        .shutdownTimeout(Duration.ofSeconds(2))
        .listener(recorder)
        .define(definition)
        .handler("report", deliveries.handler("n1", body));
  }

  private Herald started(Herald.Builder b) {
    Herald h = b.build();
    toClose.add(h);
    return h.start();
  }

  private static NoticeStatus statusOf(Herald herald, UUID id) {
    return herald.operations().find(id).orElseThrow().notice().status();
  }

  // Finding 6a: a handler that confirms its notice while its first delivery is still running (before
  // returning DELIVERED) was refused with IllegalTransitionException, and the notice was delivered
  // again after the confirm timeout.
  @Test
  @Timeout(60)
  void confirmFromInsideTheFirstDeliveryCountsAndTheNoticeIsNotDeliveredAgain() {
    AtomicReference<Herald> self = new AtomicReference<>();
    List<Throwable> confirmErrors = new CopyOnWriteArrayList<>();
    Herald herald = started(builder(
        NoticeDefinition.builder("report").handler("report").confirmWithin(Duration.ofMillis(500)).build(),
        ctx -> {
          try {
            self.get().operations().confirm(ctx.notice().id()); // the receiver confirms before answering
          } catch (RuntimeException e) {
            confirmErrors.add(e);
          }
          return DeliveryResult.delivered();
        }));
    self.set(herald);

    Notice n = herald.enqueue("report", "{\"report\":1}");
    await().atMost(Duration.ofSeconds(15)).until(() -> statusOf(herald, n.id()) == NoticeStatus.SUCCEEDED);

    assertThat(confirmErrors).as("confirm called by the receiver during its delivery").isEmpty();
    assertThat(deliveries.count(n.id())).as("deliveries of a notice confirmed during its first delivery")
        .isEqualTo(1);
  }

  // Finding 6b: a receiver that never confirms got redeliveries forever, past maxAttempts.
  @Test
  @Timeout(60)
  void neverConfirmedNoticeGoesDeadAfterMaxAttemptsWithAFinalAlert() {
    Herald herald = started(builder(
        NoticeDefinition.builder("report").handler("report").confirmWithin(Duration.ofMillis(300)).maxAttempts(3)
            .build(),
        ctx -> DeliveryResult.delivered()));

    Notice n = herald.enqueue("report", "{\"report\":\"never confirmed\"}");
    // 3 deliveries 300 ms apart take about a second; the bug delivers forever instead.
    await().atMost(Duration.ofSeconds(15))
        .failFast("delivered more than maxAttempts (3) times", () -> deliveries.count(n.id()) > 3)
        .until(() -> statusOf(herald, n.id()) == NoticeStatus.DEAD);

    assertThat(deliveries.count(n.id())).as("deliveries within the budget of 3 attempts").isEqualTo(3);
    assertThat(recorder.alerts).as("alerts raised").anySatisfy(a -> {
      assertThat(a.notice().id()).isEqualTo(n.id());
      assertThat(a.finalFailure()).isTrue();
    });
    assertThat(recorder.alerts.stream().filter(AlertEvent::finalFailure).count()).isEqualTo(1);

    // The receiver had it all along: a late confirmation still counts (DEAD -> SUCCEEDED), and a
    // notice that failed instead cannot be confirmed.
    assertThat(herald.operations().confirm(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(statusOf(herald, n.id())).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  // Finding 6c (deferred): a confirm redelivery that the handler deferred turned the delivered notice
  // FAILED, and it could no longer be confirmed.
  @Test
  @Timeout(60)
  void deferredConfirmRedeliveryLeavesTheNoticeConfirmable() {
    AtomicInteger calls = new AtomicInteger();
    Herald herald = started(builder(
        NoticeDefinition.builder("report").handler("report").confirmWithin(Duration.ofMillis(300)).build(),
        ctx -> calls.incrementAndGet() == 2
            ? DeliveryResult.defer(Duration.ofMinutes(10), "receiver busy") // beyond the look-ahead
            : DeliveryResult.delivered()));

    Notice n = herald.enqueue("report", "{\"report\":\"deferred redelivery\"}");
    await().atMost(Duration.ofSeconds(15))
        .until(() -> calls.get() >= 2 && statusOf(herald, n.id()) != NoticeStatus.IN_FLIGHT);
    NoticeStatus afterDefer = statusOf(herald, n.id());

    Notice confirmed = herald.operations().confirm(n.id());
    assertThat(confirmed.status()).as("confirm after the redelivery was deferred (status then: %s)", afterDefer)
        .isEqualTo(NoticeStatus.SUCCEEDED);
  }

  // Finding 6c (shutdown): a confirm redelivery held in the timer and released at shutdown turned the
  // delivered notice FAILED, and it could no longer be confirmed.
  @Test
  @Timeout(60)
  void confirmRedeliveryReleasedAtShutdownLeavesTheNoticeConfirmable() {
    Herald herald = started(builder(
        NoticeDefinition.builder("report").handler("report").confirmWithin(Duration.ofSeconds(3)).build(),
        ctx -> DeliveryResult.delivered()));
    Notice n = herald.enqueue("report", "{\"report\":\"released\"}");
    // Delivered once, then its redelivery (due in 3 s, within the 5 s look-ahead) is claimed into the timer.
    await().atMost(Duration.ofSeconds(15)).until(() -> {
      Notice now = herald.operations().find(n.id()).orElseThrow().notice();
      return now.attempts() == 1 && now.status() == NoticeStatus.IN_FLIGHT;
    });
    herald.close();
    toClose.remove(herald);
    assertThat(deliveries.count(n.id())).isEqualTo(1);

    try (Herald operator = Herald.builder().h2File(dir.resolve("herald")).nodeId("operator").build()) {
      NoticeStatus afterRelease = statusOf(operator, n.id());
      Notice confirmed = operator.operations().confirm(n.id());
      assertThat(confirmed.status()).as("confirm after shutdown released the redelivery (status then: %s)",
          afterRelease).isEqualTo(NoticeStatus.SUCCEEDED);
    }
  }
}
