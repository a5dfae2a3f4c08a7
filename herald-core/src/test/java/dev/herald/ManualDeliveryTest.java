package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine driven step by step with a settable clock, on an H2 database in real files. */
class ManualDeliveryTest {
  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Recorder recorder = new Recorder();
  private final Map<String, Integer> failuresBeforeSuccess = new ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();
  private Herald herald;
  private ManualRunner runner;

  @BeforeEach
  void setUp() {
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(clock)
        .nodeId("test-node")
        .listener(recorder)
        .define(NoticeDefinition.builder("flaky").handler("flaky").retry("5s, 1m").maxAttempts(3)
            .alert(AlertPolicy.finalFailure()).build())
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .define(NoticeDefinition.builder("acked").handler("ok").confirmWithin(Duration.ofMinutes(2)).build())
        .handler("ok", ctx -> {
          calls.incrementAndGet();
          ctx.describe("handled attempt " + ctx.attempt());
          return DeliveryResult.delivered();
        })
        .handler("flaky", ctx -> {
          calls.incrementAndGet();
          int left = failuresBeforeSuccess.getOrDefault(ctx.payload(), Integer.MAX_VALUE);
          if (ctx.attempt() <= left) {
            throw new IllegalStateException("receiver down (attempt " + ctx.attempt() + ")");
          }
          return DeliveryResult.delivered("took it");
        })
        .build();
    runner = new ManualRunner(herald, clock);
  }

  @AfterEach
  void tearDown() {
    herald.close();
  }

  private Notice status(UUID id) {
    return herald.operations().find(id).orElseThrow().notice();
  }

  @Test
  void enqueuedNoticeIsDeliveredWhenDueAndArchived() {
    Notice n = herald.enqueue("ok", "{\"order\":1}");
    assertThat(n.status()).isEqualTo(NoticeStatus.PENDING);

    assertThat(runner.runDue()).isEqualTo(1);

    NoticeDetail d = herald.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(d.notice().finishedAt()).isEqualTo(clock.instant());
    assertThat(d.notice().description()).isEqualTo("handled attempt 1");
    assertThat(d.notice().payload()).isEqualTo("{\"order\":1}");
    assertThat(d.attempts()).singleElement().satisfies(a -> {
      assertThat(a.number()).isEqualTo(1);
      assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.DELIVERED);
      assertThat(a.node()).isEqualTo("test-node");
    });
    assertThat(countRows("herald_notice")).isZero();
    assertThat(countRows("herald_notice_history")).isEqualTo(1);
    assertThat(runner.runDue()).isZero();
    assertThat(calls).hasValue(1);
  }

  @Test
  void fireTimesAreWholeMillisecondsRoundedUpSoANoticeNeverFiresEarly() {
    Instant asked = clock.instant().plusNanos(1_500_000);
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").fireAt(asked));
    assertThat(n.fireAt()).isEqualTo(clock.instant().plusMillis(2));
    assertThat(runner.advanceAndRun(Duration.ofMillis(1))).isZero();
    assertThat(runner.advanceAndRun(Duration.ofMillis(1))).isEqualTo(1);
  }

  @Test
  void futureNoticeWaitsForItsFireTime() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofMinutes(30)));
    assertThat(runner.runDue()).isZero();
    assertThat(runner.advanceAndRun(Duration.ofMinutes(29))).isZero();
    assertThat(runner.advanceAndRun(Duration.ofMinutes(1))).isEqualTo(1);
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void failuresAreRetriedOnTheScheduleThenGoDeadWithEveryAttemptLogged() {
    Notice n = herald.enqueue("flaky", "\"never\"");

    assertThat(runner.runDue()).isEqualTo(1);
    Notice afterFirst = status(n.id());
    assertThat(afterFirst.status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(afterFirst.attempts()).isEqualTo(1);
    assertThat(afterFirst.lastError()).contains("IllegalStateException", "receiver down (attempt 1)");
    assertThat(afterFirst.nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(5));

    assertThat(runner.advanceAndRun(Duration.ofMillis(4_999))).as("not due before 5s").isZero();
    assertThat(runner.advanceAndRun(Duration.ofMillis(1))).isEqualTo(1);
    Notice afterSecond = status(n.id());
    assertThat(afterSecond.status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(afterSecond.nextAttemptAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));

    assertThat(runner.advanceAndRun(Duration.ofSeconds(59))).isZero();
    assertThat(runner.advanceAndRun(Duration.ofSeconds(1))).isEqualTo(1);
    NoticeDetail dead = herald.operations().find(n.id()).orElseThrow();
    assertThat(dead.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(dead.notice().attempts()).isEqualTo(3);
    assertThat(dead.attempts()).extracting(Attempt::number).containsExactly(1, 2, 3);
    assertThat(dead.attempts()).allSatisfy(a -> assertThat(a.detail()).contains("receiver down (attempt " + a.number() + ")"));
    assertThat(dead.attempts()).extracting(Attempt::outcome).as("the last is logged as the end it was, not a retry")
        .containsExactly(DeliveryResult.Outcome.RETRY, DeliveryResult.Outcome.RETRY, DeliveryResult.Outcome.FAIL);
    assertThat(dead.attempts().getLast().detail().lines().findFirst().orElseThrow())
        .endsWith("receiver down (attempt 3) (attempt 3 of 3: no retry left, DEAD)");
    assertThat(runner.advanceAndRun(Duration.ofDays(1))).as("dead is final").isZero();
    assertThat(recorder.alerts).singleElement().satisfies(a -> {
      assertThat(a.finalFailure()).isTrue();
      assertThat(a.failures()).isEqualTo(3);
      assertThat(a.notice().id()).isEqualTo(n.id());
    });
  }

  @Test
  void retryThatSucceedsEndsSucceeded() {
    failuresBeforeSuccess.put("\"twice\"", 2);
    Notice n = herald.enqueue("flaky", "\"twice\"");
    runner.runDue();
    runner.advanceAndRun(Duration.ofSeconds(5));
    runner.advanceAndRun(Duration.ofMinutes(1));
    Notice done = status(n.id());
    assertThat(done.status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(done.attempts()).isEqualTo(3);
    assertThat(done.lastError()).isNull();
    assertThat(recorder.alerts).isEmpty();
  }

  @Test
  void confirmationRequiredNoticeWaitsThenIsRedeliveredOnTimeoutUntilConfirmed() {
    Notice n = herald.enqueue("acked", "{}");
    runner.runDue();
    Notice waiting = status(n.id());
    assertThat(waiting.status()).isEqualTo(NoticeStatus.AWAITING_CONFIRM);
    assertThat(waiting.nextAttemptAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(2)));

    assertThat(runner.advanceAndRun(Duration.ofMinutes(1))).isZero();
    assertThat(runner.advanceAndRun(Duration.ofMinutes(1))).as("redelivered on timeout").isEqualTo(1);
    assertThat(status(n.id()).attempts()).isEqualTo(2);
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.AWAITING_CONFIRM);

    Notice confirmed = herald.operations().confirm(n.id());
    assertThat(confirmed.status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(runner.advanceAndRun(Duration.ofHours(1))).isZero();
    assertThat(calls).hasValue(2);
  }

  @Test
  void confirmingANoticeThatIsNotAwaitingConfirmationIsAnIllegalTransition() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofHours(1)));
    assertThatThrownBy(() -> herald.operations().confirm(n.id()))
        .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
          assertThat(e.from()).isEqualTo(NoticeStatus.PENDING);
          assertThat(e.to()).isEqualTo(NoticeStatus.SUCCEEDED);
        });
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.PENDING);
  }

  @Test
  void cancelledNoticeIsNeverDeliveredAndCannotBeCancelledTwice() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofMinutes(5)));
    Notice cancelled = herald.operations().cancel(n.id());
    assertThat(cancelled.status()).isEqualTo(NoticeStatus.CANCELLED);
    assertThat(runner.advanceAndRun(Duration.ofHours(1))).isZero();
    assertThat(calls).hasValue(0);
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.CANCELLED);
    assertThatThrownBy(() -> herald.operations().cancel(n.id()))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("CANCELLED");
    assertThat(recorder.finished).extracting(Notice::status).containsExactly(NoticeStatus.CANCELLED);
  }

  @Test
  void resendBringsADeadNoticeBackWithAFreshAttemptBudget() {
    Notice n = herald.enqueue("flaky", "\"later\"");
    runner.runDue();
    runner.advanceAndRun(Duration.ofSeconds(5));
    runner.advanceAndRun(Duration.ofMinutes(1));
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.DEAD);

    failuresBeforeSuccess.put("\"later\"", 3);
    Notice resent = herald.operations().resend(n.id());
    assertThat(resent.status()).isEqualTo(NoticeStatus.PENDING);
    assertThat(countRows("herald_notice")).isEqualTo(1);
    assertThat(countRows("herald_notice_history")).isZero();

    assertThat(runner.runDue()).isEqualTo(1);
    NoticeDetail d = herald.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(d.attempts()).extracting(Attempt::number).containsExactly(1, 2, 3, 4);
  }

  @Test
  void resendOfAFutureNoticeMakesItDueNow() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofDays(1)));
    herald.operations().resend(n.id());
    assertThat(runner.runDue()).isEqualTo(1);
    assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void aNoticeNotYetDeliveredCanBeEditedButNotOnceDelivered() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{\"v\":1}").delay(Duration.ofHours(1)));
    Instant sooner = clock.instant().plus(Duration.ofMinutes(10));
    Notice edited = herald.operations().edit(n.id(), new NoticeEdit("{\"v\":2}", sooner, "ok"));
    assertThat(edited.payload()).isEqualTo("{\"v\":2}");
    assertThat(edited.fireAt()).isEqualTo(sooner);
    assertThat(edited.target()).isEqualTo("ok");
    Notice stored = status(n.id());
    assertThat(stored.payload()).isEqualTo("{\"v\":2}");
    assertThat(stored.nextAttemptAt()).isEqualTo(sooner);
    assertThat(stored.target()).isEqualTo("ok");

    assertThatThrownBy(() -> herald.operations().edit(n.id(), NoticeEdit.payload("{oops")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("payload"));
    assertThat(status(n.id()).payload()).isEqualTo("{\"v\":2}");

    assertThat(runner.advanceAndRun(Duration.ofMinutes(10))).isEqualTo(1);
    assertThatThrownBy(() -> herald.operations().edit(n.id(), NoticeEdit.payload("{}")))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("only a notice not yet delivered can be edited");
  }

  @Test
  void aNoticeWithItsOwnTargetGoesThereInsteadOfItsDefinitionsTarget() {
    Herald h = Herald.builder()
        .h2File(dir.resolve("other"))
        .clock(clock)
        .define(NoticeDefinition.builder("route").handler("default").build())
        .handler("default", ctx -> DeliveryResult.fail("wrong handler"))
        .handler("special", ctx -> DeliveryResult.delivered("special took it"))
        .build();
    try (h) {
      Notice n = h.enqueue(NoticeRequest.of("route", "{}").target("special"));
      assertThat(n.target()).isEqualTo("special");
      h.runDue();
      NoticeDetail d = h.operations().find(n.id()).orElseThrow();
      assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(d.notice().target()).as("kept in history").isEqualTo("special");
      assertThat(d.attempts().getFirst().detail()).isEqualTo("special took it");
    }
  }

  @Test
  void bulkRecoverRequeuesOnlyTheDeadOfThatDefinitionInTheWindow() {
    Instant t0 = clock.instant();
    Notice a = herald.enqueue("flaky", "\"a\"");
    Notice b = herald.enqueue("flaky", "\"b\"");
    runner.runDue();
    runner.advanceAndRun(Duration.ofSeconds(5));
    runner.advanceAndRun(Duration.ofMinutes(1));
    Notice later = herald.enqueue(NoticeRequest.of("flaky", "\"c\"").delay(Duration.ofHours(2)));
    runner.advanceAndRun(Duration.ofHours(2));
    runner.advanceAndRun(Duration.ofSeconds(5));
    runner.advanceAndRun(Duration.ofMinutes(1));
    assertThat(List.of(a, b, later)).allSatisfy(n -> assertThat(status(n.id()).status()).isEqualTo(NoticeStatus.DEAD));

    int recovered = herald.operations().recoverDead("flaky", t0, t0.plus(Duration.ofHours(1)));

    assertThat(recovered).isEqualTo(2);
    assertThat(status(a.id()).status()).isEqualTo(NoticeStatus.PENDING);
    assertThat(status(b.id()).status()).isEqualTo(NoticeStatus.PENDING);
    assertThat(status(later.id()).status()).isEqualTo(NoticeStatus.DEAD);
  }

  @Test
  void sameIdempotencyKeyReturnsTheFirstNoticeAndCreatesNothing() {
    Notice first = herald.enqueue(NoticeRequest.of("ok", "{\"v\":1}").idempotencyKey("order-7"));
    Notice again = herald.enqueue(NoticeRequest.of("ok", "{\"v\":2}").idempotencyKey("order-7"));
    Notice otherDefinition = herald.enqueue(NoticeRequest.of("flaky", "{\"v\":3}").idempotencyKey("order-7"));
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.payload()).isEqualTo("{\"v\":1}");
    assertThat(otherDefinition.id()).isNotEqualTo(first.id());
    assertThat(countRows("herald_notice")).isEqualTo(2);

    runner.runDue();
    Notice afterDelivery = herald.enqueue(NoticeRequest.of("ok", "{\"v\":4}").idempotencyKey("order-7"));
    assertThat(afterDelivery.id()).as("still deduplicated once archived").isEqualTo(first.id());
    assertThat(afterDelivery.status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void handlerMayEndANoticeItselfWithAFinalFailure() {
    Herald h = Herald.builder()
        .h2File(dir.resolve("other"))
        .clock(clock)
        .define(NoticeDefinition.builder("refuse").handler("refuse").unlimitedAttempts()
            .alert(AlertPolicy.everyFailure()).build())
        .handler("refuse", ctx -> DeliveryResult.fail("merchant closed the account"))
        .listener(recorder)
        .build();
    try (h) {
      Notice n = h.enqueue("refuse", "{}");
      h.runDue();
      Notice dead = h.operations().find(n.id()).orElseThrow().notice();
      assertThat(dead.status()).isEqualTo(NoticeStatus.DEAD);
      assertThat(dead.lastError()).isEqualTo("merchant closed the account");
      assertThat(recorder.alerts).singleElement().satisfies(a -> assertThat(a.finalFailure()).isTrue());
    }
  }

  @Test
  void aDeferredNoticeIsRescheduledWithoutCountingAnAttempt() {
    AtomicInteger tries = new AtomicInteger();
    Herald h = Herald.builder()
        .h2File(dir.resolve("other"))
        .clock(clock)
        .define(NoticeDefinition.builder("busy").handler("busy").maxAttempts(1).build())
        .handler("busy", ctx -> tries.incrementAndGet() < 3
            ? DeliveryResult.defer(Duration.ofSeconds(10), "endpoint at its concurrency limit")
            : DeliveryResult.delivered())
        .build();
    try (h) {
      Notice n = h.enqueue("busy", "{}");
      h.runDue();
      Notice deferred = h.operations().find(n.id()).orElseThrow().notice();
      assertThat(deferred.status()).isEqualTo(NoticeStatus.PENDING);
      assertThat(deferred.attempts()).isZero();
      assertThat(deferred.nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(10));
      assertThat(h.runDue()).as("not due again yet").isZero();
      clock.advance(Duration.ofSeconds(10));
      h.runDue();
      clock.advance(Duration.ofSeconds(10));
      h.runDue();
      NoticeDetail done = h.operations().find(n.id()).orElseThrow();
      assertThat(done.notice().status()).as("one real attempt, within maxAttempts(1)").isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(done.attempts()).singleElement().satisfies(a -> assertThat(a.number()).isEqualTo(1));
    }
  }

  @Test
  void alertAfterNFailuresFiresOnceAtTheNthFailure() {
    Herald h = Herald.builder()
        .h2File(dir.resolve("other"))
        .clock(clock)
        .define(NoticeDefinition.builder("down").handler("down").retry("1s").unlimitedAttempts()
            .alert(AlertPolicy.afterFailures(3)).build())
        .handler("down", ctx -> DeliveryResult.retry("503"))
        .listener(recorder)
        .build();
    try (h) {
      h.enqueue("down", "{}");
      h.runDue();
      for (int i = 0; i < 5; i++) {
        clock.advance(Duration.ofSeconds(1));
        h.runDue();
      }
      assertThat(recorder.attempts).hasSize(6);
      assertThat(recorder.alerts).singleElement().satisfies(a -> {
        assertThat(a.failures()).isEqualTo(3);
        assertThat(a.finalFailure()).isFalse();
      });
    }
  }

  @Test
  void queryFiltersByDefinitionStatusAndTimeWithPaging() {
    for (int i = 0; i < 5; i++) {
      herald.enqueue("ok", "{\"i\":" + i + "}");
      clock.advance(Duration.ofSeconds(1));
    }
    herald.enqueue(NoticeRequest.of("flaky", "{}").delay(Duration.ofHours(1)));
    runner.runDue();

    Page<Notice> succeeded = herald.operations().query(NoticeQuery.all().definition("ok")
        .statuses(NoticeStatus.SUCCEEDED).page(0, 2));
    assertThat(succeeded.items()).extracting(Notice::payload).containsExactly("{\"i\":4}", "{\"i\":3}");
    assertThat(succeeded.hasMore()).isTrue();
    Page<Notice> last = herald.operations().query(NoticeQuery.all().definition("ok").page(4, 2));
    assertThat(last.items()).extracting(Notice::payload).containsExactly("{\"i\":0}");
    assertThat(last.hasMore()).isFalse();

    Page<Notice> all = herald.operations().query(NoticeQuery.all());
    assertThat(all.items()).hasSize(6);
    assertThat(all.items().getFirst().definition()).isEqualTo("flaky");
    assertThat(all.items().getFirst().status()).isEqualTo(NoticeStatus.PENDING);

    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    Page<Notice> window = herald.operations().query(NoticeQuery.all()
        .createdBetween(start.plusSeconds(1), start.plusSeconds(3)));
    assertThat(window.items()).extracting(Notice::payload).containsExactly("{\"i\":2}", "{\"i\":1}");
  }

  @Test
  void historyIsPurgedAfterRetentionWithItsAttempts() {
    Herald h = Herald.builder()
        .h2File(dir.resolve("other"))
        .clock(clock)
        .historyRetention(Duration.ofDays(7))
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", ctx -> DeliveryResult.delivered())
        .build();
    try (h) {
      Notice old = h.enqueue("ok", "{}");
      h.runDue();
      clock.advance(Duration.ofDays(6));
      Notice recent = h.enqueue("ok", "{}");
      h.runDue();
      clock.advance(Duration.ofDays(1).plusMillis(1));

      assertThat(h.purgeHistory()).isEqualTo(1);
      assertThat(h.operations().find(old.id())).isEmpty();
      assertThat(h.operations().find(recent.id())).isPresent();
    }
  }

  @Test
  void definitionsAreStoredListedAndUpdated() {
    NoticeDefinition changed = herald.definitions().find("ok").orElseThrow().toBuilder()
        .retry("exponential(base=1s, factor=3, cap=10m)").maxInterval(Duration.ofMinutes(5)).description("updated")
        .option("retry-on", "java.io.IOException").option("fail-on", "java.lang.IllegalStateException")
        .build();
    herald.definitions().save(changed);
    assertThat(herald.definitions().list()).extracting(NoticeDefinition::name)
        .containsExactly("acked", "flaky", "ok");
    assertThat(herald.definitions().find("ok")).contains(changed);
    assertThat(herald.definitions().list()).filteredOn(d -> d.name().equals("ok")).singleElement()
        .satisfies(d -> assertThat(d.options()).containsExactly(
            java.util.Map.entry("fail-on", "java.lang.IllegalStateException"),
            java.util.Map.entry("retry-on", "java.io.IOException")));
    assertThat(herald.definitions().delete("acked")).isTrue();
    assertThat(herald.definitions().find("acked")).isEmpty();
  }

  private long countRows(String table) {
    try (Connection c = herald.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
