package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine running on its own threads, on an H2 database in real files, with the system clock. */
class EngineTest {
  @TempDir Path dir;

  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private final List<Instant> deliveredAt = new CopyOnWriteArrayList<>();
  private final Set<Herald> open = ConcurrentHashMap.newKeySet();
  private final Recorder recorder = new Recorder();

  @AfterEach
  void closeAll() {
    open.forEach(Herald::close);
  }

  private Herald.Builder builder(String node) {
    return Herald.builder()
        .h2File(dir.resolve("herald"))
        .nodeId(node)
        .listener(recorder)
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("ok").handler("record").retry("100ms").build());
  }

  private Herald started(Herald.Builder b) {
    Herald h = b.build();
    open.add(h);
    return h.start();
  }

  private NoticeHandler recording() {
    return ctx -> {
      deliveredAt.add(Instant.now());
      delivered.add(ctx.payload());
      return DeliveryResult.delivered();
    };
  }

  @Test
  void committedNoticeIsDeliveredRightAfterCommitWithoutWaitingForAPoll() {
    Herald herald = started(builder("n1").pollInterval(Duration.ofSeconds(30)).handler("record", recording()));
    Instant committed = herald.inTransaction(tx -> {
      tx.enqueue("ok", "{\"fast\":true}");
      return Instant.now();
    });
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.contains("{\"fast\":true}"));
    assertThat(Duration.between(committed, deliveredAt.getFirst()))
        .as("delivered from memory, long before the 30 s poll")
        .isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void noticeWrittenWithTheCallersConnectionIsDeliveredByTheNextPollAfterCommit() throws Exception {
    Herald herald = started(builder("n1").pollInterval(Duration.ofMillis(200)).handler("record", recording()));
    try (Connection c = herald.dataSource().getConnection()) {
      c.setAutoCommit(false);
      createOrders(c);
      insertOrder(c, 1);
      herald.enqueue(c, NoticeRequest.of("ok", "{\"order\":1}"));
      c.commit();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.contains("{\"order\":1}"));
  }

  @Test
  void rolledBackNoticeIsNeverDelivered() throws Exception {
    Herald herald = started(builder("n1").pollInterval(Duration.ofMillis(100)).handler("record", recording()));
    try (Connection c = herald.dataSource().getConnection()) {
      c.setAutoCommit(false);
      createOrders(c);
      c.commit();
      insertOrder(c, 1);
      herald.enqueue(c, NoticeRequest.of("ok", "{\"rolled\":\"plain\"}"));
      c.rollback();
    }
    assertThatThrownBy(() -> herald.inTransaction(tx -> {
      insertOrder(tx.connection(), 2);
      tx.enqueue("ok", "{\"rolled\":\"helper\"}");
      throw new IllegalStateException("business rule failed");
    })).isInstanceOf(IllegalStateException.class).hasMessage("business rule failed");

    herald.enqueue("ok", "{\"marker\":true}");
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.contains("{\"marker\":true}"));
    // the marker went through the same engine after the rollbacks; give the poller a few more rounds
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> delivered.size() == 1);
    assertThat(delivered).containsExactly("{\"marker\":true}");
    assertThat(count(herald, "SELECT COUNT(*) FROM shop_order")).isZero();
    assertThat(count(herald, "SELECT COUNT(*) FROM herald_notice")
        + count(herald, "SELECT COUNT(*) FROM herald_notice_history")).isEqualTo(1);
  }

  @Test
  void handlerExceptionNeverReachesTheCallerAndIsRetriedFromMemory() {
    AtomicInteger attempts = new AtomicInteger();
    Herald herald = started(builder("n1").pollInterval(Duration.ofSeconds(30)).handler("record", ctx -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("first attempt fails");
      }
      delivered.add(ctx.payload());
      return DeliveryResult.delivered();
    }));
    Notice n = herald.inTransaction(tx -> tx.enqueue("ok", "{}"));
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 1);
    NoticeDetail d = awaitFinished(herald, n.id());
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(d.attempts()).extracting(Attempt::outcome)
        .containsExactly(DeliveryResult.Outcome.RETRY, DeliveryResult.Outcome.DELIVERED);
    assertThat(d.attempts().getFirst().detail()).contains("first attempt fails");
  }

  @Test
  void delayedNoticeFiresAtItsTimeNotBefore() {
    Herald herald = started(builder("n1").handler("record", recording()));
    Instant fireAt = Instant.now().plusMillis(1_500);
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{\"delayed\":1}").fireAt(fireAt));
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 1);
    assertThat(deliveredAt.getFirst()).isAfterOrEqualTo(fireAt);
    assertThat(awaitFinished(herald, n.id()).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void cancellingANoticeHeldInTheTimerStopsItsDelivery() {
    Herald herald = started(builder("n1").handler("record", recording()));
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{\"cancel\":1}").delay(Duration.ofMillis(1_500)));
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().status())
        .as("leased at enqueue: it is within the look-ahead").isEqualTo(NoticeStatus.IN_FLIGHT);
    herald.operations().cancel(n.id());
    Notice other = herald.enqueue(NoticeRequest.of("ok", "{\"after\":1}").delay(Duration.ofMillis(2_000)));
    awaitFinished(herald, other.id());
    assertThat(delivered).containsExactly("{\"after\":1}");
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.CANCELLED);
  }

  @Test
  void gracefulShutdownReleasesHeldNoticesAndAnotherNodeDeliversThem() {
    Herald first = started(builder("n1").handler("record", recording()));
    List<Notice> held = first.enqueueAll(List.of(
        NoticeRequest.of("ok", "{\"held\":1}").delay(Duration.ofSeconds(3)),
        NoticeRequest.of("ok", "{\"held\":2}").delay(Duration.ofSeconds(3))));
    first.close();
    open.remove(first);
    for (Notice n : held) {
      Notice released = lookup(n.id());
      assertThat(released.status()).isEqualTo(NoticeStatus.PENDING);
    }
    assertThat(delivered).isEmpty();

    Herald second = started(builder("n2").handler("record", recording()));
    held.forEach(n -> assertThat(awaitFinished(second, n.id()).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED));
    assertThat(delivered).containsExactlyInAnyOrder("{\"held\":1}", "{\"held\":2}");
  }

  @Test
  void attemptStillRunningAtShutdownIsDeliveredAgainAfterRestart() throws Exception {
    CountDownLatch stuck = new CountDownLatch(1);
    Herald first = started(builder("node-a").shutdownTimeout(Duration.ofMillis(200)).handler("record", ctx -> {
      stuck.await(30, TimeUnit.SECONDS);
      return DeliveryResult.retry("too late");
    }));
    Notice n = first.enqueue("ok", "{\"stuck\":1}");
    await().atMost(Duration.ofSeconds(5)).until(() -> first.operations().find(n.id()).orElseThrow().notice().status()
        == NoticeStatus.IN_FLIGHT);
    first.close();
    open.remove(first);
    stuck.countDown();
    assertThat(lookup(n.id()).status()).as("still leased by the stopped node").isEqualTo(NoticeStatus.IN_FLIGHT);

    Herald again = started(builder("node-a").handler("record", recording()));
    assertThat(awaitFinished(again, n.id()).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(delivered).containsExactly("{\"stuck\":1}");
  }

  @Test
  void flowControlBoundsHeldNoticesAndConcurrentAttempts() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    Herald herald = started(builder("n1").maxHeld(5).claimBatch(3).maxConcurrentDeliveries(2)
        .pollInterval(Duration.ofMillis(50)).handler("record", ctx -> {
          maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
          try {
            TimeUnit.MILLISECONDS.sleep(5);
          } finally {
            running.decrementAndGet();
          }
          delivered.add(ctx.payload());
          return DeliveryResult.delivered();
        }));
    for (int i = 0; i < 60; i++) {
      try (Connection c = herald.dataSource().getConnection()) {
        herald.enqueue(c, NoticeRequest.of("ok", "{\"i\":" + i + "}"));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= 60);
    assertThat(Set.copyOf(delivered)).hasSize(60);
    assertThat(maxRunning.get()).isLessThanOrEqualTo(2);
  }

  @Test
  void startingTwiceIsRefused() {
    Herald herald = started(builder("n1").handler("record", recording()));
    assertThatThrownBy(herald::start).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- helpers

  private NoticeDetail awaitFinished(Herald herald, UUID id) {
    await().atMost(Duration.ofSeconds(10))
        .until(() -> herald.operations().find(id).orElseThrow().notice().status().isFinished());
    return herald.operations().find(id).orElseThrow();
  }

  /** Reads a notice with a fresh, unstarted Herald on the same files. */
  private Notice lookup(UUID id) {
    try (Herald reader = Herald.builder().h2File(dir.resolve("herald")).nodeId("reader").build()) {
      return reader.operations().find(id).orElseThrow().notice();
    }
  }

  private static void createOrders(Connection c) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS shop_order (id INT PRIMARY KEY)");
    }
  }

  private static void insertOrder(Connection c, int id) throws Exception {
    createOrders(c);
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO shop_order (id) VALUES (?)")) {
      ps.setInt(1, id);
      ps.executeUpdate();
    }
  }

  private static long count(Herald herald, String sql) {
    try (Connection c = herald.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
