package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.IllegalTransitionException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.StoreException;
import dev.herald.faults.FaultyDataSource;
import dev.herald.store.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults every production database produces daily — the pool's timeout, a commit whose answer is
 * lost, a slow heartbeat, a write failing on a blip — each injected once, the way production
 * produces it, through the node's {@link FaultyDataSource}. None is a crash, a pause or a clock
 * step; each must leave no notice delivered twice at once, none stranded, and no acknowledged
 * operator action untrue.
 */
class OrdinaryFaultsTest {
  /** Every attempt on node "a" takes this long: the window in which the faults bite. */
  private static final long SLOW_MS = 3_000;

  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();
  private final CountDownLatch slowStarted = new CountDownLatch(1);

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  /** A node on the shared H2 database, through a pool of its own behind a fault switch. */
  private record Node(Herald herald, FaultyDataSource faults) {}

  private Node node(String id, Duration nodeTimeout, NoticeDefinition... definitions) {
    HikariDataSource pool = TestDatabases.pool(Herald.Builder.h2Url(dir.resolve("shared")), "sa", "", null, 8);
    toClose.add(pool);
    FaultyDataSource faults = new FaultyDataSource(pool);
    Herald.Builder b = Herald.builder()
        .dataSource(faults.dataSource())
        .nodeId(id)
        .pollInterval(Duration.ofMillis(100))
        .lookAhead(Duration.ofSeconds(2))
        .nodeTimeout(nodeTimeout)
        .shutdownTimeout(Duration.ofSeconds(1))
        .define(NoticeDefinition.builder("work").handler("work").retry("300ms").maxAttempts(5).build())
        .handler("work", deliveries.handler(id, ctx -> {
          if (id.equals("a") && ctx.payload().contains("slow")) {
            slowStarted.countDown();
            TimeUnit.MILLISECONDS.sleep(SLOW_MS);
          }
          return ctx.payload().contains("fail-first") && ctx.attempt() == 1
              ? DeliveryResult.retry("receiver down (test)") : DeliveryResult.delivered();
        }));
    for (NoticeDefinition d : definitions) {
      b.define(d);
    }
    Herald h = b.build();
    toClose.add(h);
    h.start();
    return new Node(h, faults);
  }

  private Node node(String id) {
    return node(id, Duration.ofSeconds(1));
  }

  private static NoticeStatus statusOf(Herald herald, UUID id) {
    return herald.operations().find(id).orElseThrow().notice().status();
  }

  private void awaitSlowAttemptOver(Notice n) {
    await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.of(n.id()).stream().anyMatch(c -> c.endNanos != 0));
  }

  // Finding 1: one pool timeout on node a's poller made it abandon its incarnation; the old token
  // was never beaten again while a's attempt still ran under it, and node b delivered the notice
  // once the token looked dead, while a's call was still in progress.
  @Test
  @Timeout(60)
  void aPoolTimeoutOnThePollerLetsNoOtherNodeDeliverWhatThisNodeIsDelivering() throws Exception {
    Node a = node("a");
    node("b");
    Notice n = a.herald().enqueue("work", "{\"slow\":true}");
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    FaultyDataSource.Rule timeout = a.faults().poolTimeout("herald-poller", 1);
    awaitSlowAttemptOver(n);
    await().atMost(Duration.ofSeconds(10)).until(() -> statusOf(a.herald(), n.id()) == NoticeStatus.SUCCEEDED);
    TimeUnit.MILLISECONDS.sleep(1_500); // a node timeout and more: a takeover would have happened by now
    assertThat(timeout.fired()).isEqualTo(1);
    assertThat(deliveries.overlapping()).isEmpty();
    assertThat(deliveries.count(n.id())).as("delivered once: it succeeded").isEqualTo(1);
  }

  // Finding 1, one node: after the same pool timeout, cancel() returned CANCELLED while the notice
  // was still being delivered (it asked the abandoned token to let go, and applied once that looked dead).
  @Test
  @Timeout(60)
  void aPoolTimeoutOnThePollerNeverLetsCancelReturnWhileTheNoticeIsBeingDelivered() throws Exception {
    Node a = node("a");
    Notice n = a.herald().enqueue("work", "{\"slow\":true}");
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    FaultyDataSource.Rule timeout = a.faults().poolTimeout("herald-poller", 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> timeout.fired() == 1);
    Throwable refused = catchThrowable(() -> a.herald().operations().cancel(n.id()));
    long returned = System.nanoTime();
    Deliveries.Call call = deliveries.of(n.id()).getFirst();
    if (refused == null) {
      assertThat(call.endNanos).as("CANCELLED returned while the attempt ran").isNotZero().isLessThan(returned);
    } else {
      assertThat(refused).isInstanceOf(IllegalTransitionException.class); // it was delivered meanwhile
      assertThat(statusOf(a.herald(), n.id())).isEqualTo(NoticeStatus.SUCCEEDED);
    }
  }

  // Finding 1, lapse path: a heartbeat that landed but returned after three quarters of the node
  // timeout made node a drop its token's row while its attempt still ran under it; node b took over.
  @Test
  @Timeout(60)
  void aHeartbeatThatReturnsLateLetsNoOtherNodeDeliverWhatThisNodeIsDelivering() throws Exception {
    Node a = node("a");
    node("b");
    Notice n = a.herald().enqueue("work", "{\"slow\":true}");
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    // The beat commits at once (its row stays fresh), but its answer comes back after the fence.
    FaultyDataSource.Rule late = a.faults().lateCommitAnswers("herald-heartbeat", "UPDATE herald_node", 850, 1);
    awaitSlowAttemptOver(n);
    await().atMost(Duration.ofSeconds(10)).until(() -> statusOf(a.herald(), n.id()) == NoticeStatus.SUCCEEDED);
    TimeUnit.MILLISECONDS.sleep(1_500);
    assertThat(late.fired()).isEqualTo(1);
    assertThat(deliveries.overlapping()).isEmpty();
    assertThat(deliveries.count(n.id())).isEqualTo(1);
  }

  // Finding 2: after a claim whose commit landed but whose answer was lost, node a went on under a
  // new token and claimed under it before registering it (its heartbeat was failing); to node b that
  // token was dead, so b took the notices over once their short lease ended, and a delivered them
  // too once its heartbeat registered the token.
  @Test
  @Timeout(60)
  void aClaimWhoseAnswerIsLostLeavesEachNoticeToOneNode() throws Exception {
    Node a = node("a");
    FaultyDataSource.Rule lost = a.faults().loseCommitAnswer("herald-poller", 1);
    List<UUID> ids = new ArrayList<>(enqueueForThePoll(a, 3, Duration.ZERO));
    await().atMost(Duration.ofSeconds(5)).until(() -> lost.fired() == 1);
    a.faults().poolTimeout("herald-heartbeat", 6); // the next beats (1.5 s of them) find no connection
    ids.addAll(enqueueForThePoll(a, 3, Duration.ofMillis(500)));
    TimeUnit.MILLISECONDS.sleep(200); // node a's poller takes them
    node("b");
    await().atMost(Duration.ofSeconds(30))
        .until(() -> ids.stream().allMatch(id -> statusOf(a.herald(), id) == NoticeStatus.SUCCEEDED));
    TimeUnit.MILLISECONDS.sleep(2_000); // a node timeout and more: a second delivery would have started
    assertThat(deliveries.overlapping()).isEmpty();
    ids.forEach(id -> assertThat(deliveries.count(id)).as("deliveries of notice %s", id).isEqualTo(1));
  }

  // Herald's own transaction (enqueue) writes notices due soon under the node's token itself, with
  // no adoption after the commit: a commit that landed but whose answer was lost leaves rows owned
  // by a live token that no memory holds. The doubt it raises must release them for a delivery.
  @Test
  @Timeout(60)
  void anEnqueueWhoseCommitAnswerIsLostIsDeliveredOnceAndSoon() throws Exception {
    Node a = node("a");
    node("b");
    FaultyDataSource.Rule lost = a.faults().loseCommitAnswer("caller", 1);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread caller = Thread.ofPlatform().name("caller").start(() -> {
      try {
        a.herald().enqueue(NoticeRequest.of("work", "{\"lost\":1}").idempotencyKey("lost-answer"));
      } catch (RuntimeException e) {
        failed.set(e);
      }
    });
    caller.join();
    assertThat(lost.fired()).isEqualTo(1);
    assertThat(failed.get()).as("the caller is told the enqueue failed").isNotNull();
    UUID id = a.herald().enqueue(NoticeRequest.of("work", "{\"lost\":1}").idempotencyKey("lost-answer")).id();
    await().atMost(Duration.ofSeconds(5)).until(() -> statusOf(a.herald(), id) == NoticeStatus.SUCCEEDED);
    // for a node timeout and more, when a second delivery would have started, there is still one
    await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> deliveries.count(id) == 1);
    assertThat(deliveries.count(id)).as("deliveries of the notice whose commit answer was lost").isEqualTo(1);
    assertThat(deliveries.overlapping()).isEmpty();
  }

  /** Notices written in a caller's own transaction: found by the poll, not fired after the commit. */
  private static List<UUID> enqueueForThePoll(Node n, int count, Duration delay) throws Exception {
    List<UUID> ids = new ArrayList<>();
    try (Connection c = n.herald().dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < count; i++) {
        ids.add(n.herald().enqueue(c, NoticeRequest.of("work", "{\"i\":" + i + "}").delay(delay)).id());
      }
      c.commit();
    }
    return ids;
  }

  // Finding 3: an operator's cancel whose write failed on a blip after the notice was taken out of
  // memory, and whose compensating release failed too: the row stayed IN_FLIGHT under a live,
  // beating token, held in no memory, and was never delivered.
  @Test
  @Timeout(60)
  void anOperatorWriteThatFailsHalfWayStrandsNothing() throws Exception {
    Node a = node("a");
    Notice n = a.herald().enqueue(NoticeRequest.of("work", "{}").delay(Duration.ofMillis(1_500)));
    await().atMost(Duration.ofSeconds(5)).until(() -> statusOf(a.herald(), n.id()) == NoticeStatus.IN_FLIGHT);
    String caller = Thread.currentThread().getName();
    // Writes on this thread (the cancel, then the release that undoes its taking) break; reads do not.
    FaultyDataSource.Rule blip = a.faults().add(FaultyDataSource.Step.STATEMENT, FaultyDataSource.Fault.BREAK, t -> t.equals(caller),
        s -> !s.stripLeading().toUpperCase().startsWith("SELECT") && s.contains("herald_notice"), 2, 0);
    assertThat(catchThrowable(() -> a.herald().operations().cancel(n.id()))).isInstanceOf(StoreException.class);
    assertThat(blip.fired()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(15)).until(() -> statusOf(a.herald(), n.id()) == NoticeStatus.SUCCEEDED);
    assertThat(deliveries.count(n.id())).isEqualTo(1);
  }

  // Finding 3: a retry kept in memory whose batch committed but whose answer was lost; the writer
  // tried again, the version check refused it as stale, and the notice was forgotten.
  @Test
  @Timeout(60)
  void aKeptRetryWhoseCommitAnswerIsLostIsDeliveredAgain() {
    Node a = node("a");
    FaultyDataSource.Rule lost = a.faults().loseCommitAnswer("herald-writer", 1);
    Notice n = a.herald().enqueue("work", "{\"fail-first\":true}");
    await().atMost(Duration.ofSeconds(15)).until(() -> statusOf(a.herald(), n.id()) == NoticeStatus.SUCCEEDED);
    assertThat(lost.fired()).isEqualTo(1);
    assertThat(deliveries.count(n.id())).isEqualTo(2);
    assertThat(a.herald().operations().find(n.id()).orElseThrow().attempts()).hasSize(2);
  }

  // Finding 5: a receiver confirmed during attempt 1 (accepted), then Herald's side of that attempt
  // failed (a read timeout). The confirmation was never applied: the notice was delivered again.
  @Test
  @Timeout(60)
  void aConfirmationAcceptedDuringAnAttemptCountsWhateverThatAttemptsOutcome() {
    List<Notice> confirmed = new ArrayList<>();
    Herald[] self = new Herald[1];
    HikariDataSource pool = TestDatabases.pool(Herald.Builder.h2Url(dir.resolve("confirm")), "sa", "", null, 8);
    toClose.add(pool);
    Herald h = Herald.builder()
        .dataSource(pool)
        .nodeId("c")
        .pollInterval(Duration.ofMillis(100))
        .define(NoticeDefinition.builder("report").handler("report").retry("300ms").maxAttempts(3)
            .confirmWithin(Duration.ofSeconds(2)).build())
        .handler("report", deliveries.handler("c", ctx -> {
          if (ctx.attempt() == 1) {
            confirmed.add(self[0].operations().confirm(ctx.notice().id())); // the receiver got it and says so
            return DeliveryResult.retry("read timed out (test): the response was lost");
          }
          return DeliveryResult.delivered();
        }))
        .build();
    toClose.add(h);
    self[0] = h;
    h.start();
    Notice n = h.enqueue("report", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> statusOf(h, n.id()).isFinished());
    assertThat(confirmed).hasSize(1);
    assertThat(statusOf(h, n.id())).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(deliveries.count(n.id())).as("not delivered again: the receiver confirmed it").isEqualTo(1);
  }
}
