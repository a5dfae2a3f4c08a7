package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.IllegalTransitionException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeEdit;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator actions (cancel, edit, resend) on notices a node holds in memory: what the action
 * returns must be what happens. A returned CANCELLED means never delivered again; a returned edit
 * means only the new version is delivered; a resend means one delivery, not two. An action may
 * instead refuse with {@link IllegalTransitionException}, and then nothing may have changed.
 */
class HeldNoticeOperationsTest {
  private static final String BLOCKER = "{\"blocker\":true}";
  private static final String MARKER = "{\"marker\":true}";

  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();
  private final CountDownLatch blockerStarted = new CountDownLatch(1);
  private final CountDownLatch releaseBlocker = new CountDownLatch(1);
  private final CountDownLatch releaseListener = new CountDownLatch(1);

  @AfterEach
  void tearDown() throws Exception {
    releaseBlocker.countDown();
    releaseListener.countDown();
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  /**
   * One node with a single delivery slot; a notice with payload {@link #BLOCKER} holds the slot until
   * {@link #releaseBlocker}, anything else fails with {@code retry} if its payload says so, else is delivered.
   */
  private Herald.Builder builder(String node) {
    return Herald.builder()
        .nodeId(node)
        .pollInterval(Duration.ofMillis(100))
        .lookAhead(Duration.ofSeconds(5))
        .lease(Duration.ofSeconds(10)) // a copy left to lease expiry shows up within the waits below
        .maxConcurrentDeliveries(1)
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("work").handler("work").retry("500ms").maxAttempts(5).build())
        .handler("work", deliveries.handler(node, ctx -> {
          if (ctx.payload().equals(BLOCKER)) {
            blockerStarted.countDown();
            releaseBlocker.await(30, TimeUnit.SECONDS);
          }
          return ctx.payload().contains("retry") ? DeliveryResult.retry("receiver down") : DeliveryResult.delivered();
        }));
  }

  private Herald started(Herald.Builder b) {
    Herald h = b.build();
    toClose.add(h);
    return h.start();
  }

  /** A single node on its own H2 file. */
  private Herald single(Herald.Builder b) {
    return started(b.h2File(dir.resolve("herald")));
  }

  private JdbcConnectionPool sharedPool() {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("shared")), "sa", "");
    pool.setMaxConnections(32);
    toClose.add(pool::dispose);
    return pool;
  }

  /**
   * Occupies the only delivery slot, then enqueues {@code payload} due now: it leaves the timer and
   * waits for the slot (out of the timer, not yet delivering), which is where the findings bite.
   */
  private Notice noticeWaitingForTheSlot(Herald herald, String payload) throws InterruptedException {
    herald.enqueue("work", BLOCKER);
    assertThat(blockerStarted.await(10, TimeUnit.SECONDS)).as("blocker started").isTrue();
    Notice n = herald.enqueue("work", payload);
    // Setup, not an assertion: give the timer thread time to take it out of the timer and start
    // waiting for the slot. If it has not yet, the test still holds; it just exercises less.
    TimeUnit.MILLISECONDS.sleep(300);
    assertThat(deliveries.count(n.id())).as("not delivered yet: the slot is taken").isZero();
    return n;
  }

  /**
   * Enqueues a marker due now and waits until it is finished. With one delivery slot, anything the
   * node held that was due before the marker has been delivered by then.
   */
  private void drain(Herald herald) {
    Notice marker = herald.enqueue("work", MARKER);
    awaitStatus(herald, marker.id(), NoticeStatus.SUCCEEDED);
  }

  private static void awaitStatus(Herald herald, UUID id, NoticeStatus status) {
    awaitStatus(herald, id, status, "never", () -> false);
  }

  /** Waits (long enough for a lease to run out) for {@code status}; fails at once if {@code broken} holds. */
  private static void awaitStatus(Herald herald, UUID id, NoticeStatus status, String brokenWhen,
      java.util.concurrent.Callable<Boolean> broken) {
    await("notice " + id + " reaching " + status).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
        .failFast(brokenWhen, broken)
        .until(() -> herald.operations().find(id).orElseThrow().notice().status() == status);
  }

  private static NoticeStatus statusOf(Herald herald, UUID id) {
    return herald.operations().find(id).orElseThrow().notice().status();
  }

  // Finding 2 (cancel): a notice waiting for a delivery slot was cancelled (CANCELLED returned) and
  // then delivered anyway.
  @Test
  @Timeout(90)
  void cancelOfANoticeWaitingForADeliverySlotMeansItIsNeverDelivered() throws Exception {
    Herald herald = single(builder("n1"));
    Notice target = noticeWaitingForTheSlot(herald, "{\"target\":\"cancel\"}");

    Notice cancelled;
    try {
      cancelled = herald.operations().cancel(target.id());
    } catch (IllegalTransitionException refused) {
      cancelled = null;
    }
    releaseBlocker.countDown();
    drain(herald);

    if (cancelled != null) {
      assertThat(cancelled.status()).isEqualTo(NoticeStatus.CANCELLED);
      assertThat(deliveries.of(target.id())).as("deliveries after cancel returned CANCELLED").isEmpty();
      assertThat(statusOf(herald, target.id())).isEqualTo(NoticeStatus.CANCELLED);
    } else { // refused: then nothing changed, and it is delivered as usual
      awaitStatus(herald, target.id(), NoticeStatus.SUCCEEDED);
      assertThat(deliveries.count(target.id())).isEqualTo(1);
    }
  }

  // Finding 2 (edit): after edit returned the new payload, the old payload was delivered.
  @Test
  @Timeout(90)
  void editOfANoticeWaitingForADeliverySlotMeansOnlyTheNewPayloadIsDelivered() throws Exception {
    Herald herald = single(builder("n1"));
    String before = "{\"target\":\"edit\",\"v\":1}";
    String after = "{\"target\":\"edit\",\"v\":2}";
    Notice target = noticeWaitingForTheSlot(herald, before);

    Notice edited;
    try {
      edited = herald.operations().edit(target.id(), NoticeEdit.payload(after));
    } catch (IllegalTransitionException refused) {
      edited = null;
    }
    releaseBlocker.countDown();
    boolean editReturned = edited != null;
    awaitStatus(herald, target.id(), NoticeStatus.SUCCEEDED, "the old payload was delivered after edit returned",
        () -> editReturned && deliveries.payloadsOf(target.id()).contains(before));
    drain(herald);

    if (edited != null) {
      assertThat(edited.payload()).isEqualTo(after);
      assertThat(deliveries.payloadsOf(target.id()))
          .as("payloads the receiver got after edit returned the new one")
          .containsExactly(after);
    } else {
      assertThat(deliveries.payloadsOf(target.id())).containsExactly(before);
    }
  }

  // Finding 2 (resend): a resent notice that was waiting for a delivery slot was delivered twice.
  @Test
  @Timeout(90)
  void resendOfANoticeWaitingForADeliverySlotDeliversItOnceNotTwice() throws Exception {
    Herald herald = single(builder("n1"));
    Notice target = noticeWaitingForTheSlot(herald, "{\"target\":\"resend\"}");

    try {
      herald.operations().resend(target.id());
    } catch (IllegalTransitionException refused) {
      // refused: it is delivered as if nothing happened, which the assertion below also covers
    }
    releaseBlocker.countDown();
    awaitStatus(herald, target.id(), NoticeStatus.SUCCEEDED, "the resent notice was delivered twice",
        () -> deliveries.count(target.id()) > 1);
    drain(herald);

    assertThat(deliveries.of(target.id()))
        .as("receiver calls for a notice never delivered before its resend")
        .hasSize(1);
  }

  // Finding 3: cancel on node B of a notice that node A holds in its timer returned CANCELLED, and
  // node A delivered it anyway.
  @Test
  @Timeout(90)
  void cancelOnAnotherNodeOfANoticeHeldInATimerMeansItIsNeverDelivered() {
    Herald a = started(builder("node-a").dataSource(sharedPool()));
    Herald b = started(builder("node-b").dataSource(sharedPool()));
    Notice target = a.enqueue(NoticeRequest.of("work", "{\"target\":\"remote-cancel\"}").delay(Duration.ofSeconds(2)));
    assertThat(statusOf(b, target.id())).as("leased by node A at enqueue (within its look-ahead)")
        .isEqualTo(NoticeStatus.IN_FLIGHT);

    Notice cancelled;
    try {
      cancelled = b.operations().cancel(target.id());
    } catch (IllegalTransitionException refused) {
      cancelled = null;
    }
    // A marker due after the target, on node A (one slot): once it is finished, A has fired
    // everything due before it. This replaces waiting past the target's due time.
    Notice marker = a.enqueue(NoticeRequest.of("work", MARKER).fireAt(target.fireAt().plusMillis(500)));
    awaitStatus(a, marker.id(), NoticeStatus.SUCCEEDED);

    if (cancelled != null) {
      assertThat(cancelled.status()).isEqualTo(NoticeStatus.CANCELLED);
      assertThat(deliveries.of(target.id())).as("deliveries after node B's cancel returned CANCELLED").isEmpty();
      assertThat(statusOf(a, target.id())).isEqualTo(NoticeStatus.CANCELLED);
    } else {
      awaitStatus(a, target.id(), NoticeStatus.SUCCEEDED);
      assertThat(deliveries.count(target.id())).isEqualTo(1);
    }
  }

  // Finding 4: cancel of a notice whose retry is kept in memory, while the listeners of its first
  // outcome run, returned CANCELLED; the kept retry then ran anyway.
  @Test
  @Timeout(90)
  void cancelWhileTheOutcomeListenersOfAKeptRetryRunMeansNoFurtherAttempt() throws Exception {
    CountDownLatch inListener = new CountDownLatch(1);
    HeraldListener blocking = new HeraldListener() {
      @Override
      public void onAttempt(Notice notice, Attempt attempt) {
        if (notice.payload().contains("kept-retry") && attempt.number() == 1) {
          inListener.countDown();
          try {
            releaseListener.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    };
    Herald herald = single(builder("n1").listener(blocking));
    // Fails with "retry": the next attempt is due in 500 ms, within the 5 s look-ahead, so kept in memory.
    Notice target = herald.enqueue("work", "{\"target\":\"kept-retry\",\"retry\":true}");
    assertThat(inListener.await(10, TimeUnit.SECONDS)).as("first attempt recorded, listener running").isTrue();
    assertThat(deliveries.count(target.id())).isEqualTo(1);

    Notice cancelled;
    try {
      cancelled = herald.operations().cancel(target.id());
    } catch (IllegalTransitionException refused) {
      cancelled = null;
    }
    releaseListener.countDown();
    // A marker due after the kept retry would be (500 ms after attempt 1): with one slot, once the
    // marker is finished, the retry has run if it was going to.
    Notice marker = herald.enqueue(NoticeRequest.of("work", MARKER).delay(Duration.ofSeconds(1)));
    awaitStatus(herald, marker.id(), NoticeStatus.SUCCEEDED);

    if (cancelled != null) {
      assertThat(cancelled.status()).isEqualTo(NoticeStatus.CANCELLED);
      assertThat(deliveries.of(target.id()))
          .as("receiver calls: only the attempt before the acknowledged cancel")
          .hasSize(1);
      assertThat(statusOf(herald, target.id())).isEqualTo(NoticeStatus.CANCELLED);
      assertThat(herald.operations().find(target.id()).orElseThrow().attempts()).hasSize(1);
    } else {
      assertThat(deliveries.count(target.id())).isGreaterThanOrEqualTo(2);
    }
  }
}
