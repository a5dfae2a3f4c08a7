package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.spi.Shards;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which node runs what (document 004), and refusing intake while the backlog is too large (document 001). */
class FlowControlAndAffinityTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Map<String, String> deliveredBy = new ConcurrentHashMap<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private JdbcConnectionPool pool() {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("db")), "sa", "");
    toClose.add(pool::dispose);
    return pool;
  }

  private Herald.Builder node(String name) {
    NoticeHandler record = ctx -> {
      deliveredBy.put(ctx.payload(), name);
      return DeliveryResult.delivered();
    };
    return Herald.builder()
        .dataSource(pool())
        .nodeId(name)
        .pollInterval(Duration.ofMillis(50))
        .define(NoticeDefinition.builder("orders").handler("record").build())
        .define(NoticeDefinition.builder("reports").handler("record").build())
        .handler("record", record);
  }

  private Herald start(Herald.Builder b) {
    Herald h = b.build();
    toClose.add(h);
    return h.start();
  }

  @Test
  void nodesDeliverOnlyTheirDefinitions() throws Exception {
    Herald orders = start(node("orders-node").onlyDefinitions(Set.of("orders")));
    start(node("reports-node").onlyDefinitions(Set.of("reports")));
    try (Connection c = orders.dataSource().getConnection()) {
      for (int i = 0; i < 50; i++) {
        orders.enqueue(c, NoticeRequest.of("orders", "{\"o\":" + i + "}"));
        orders.enqueue(c, NoticeRequest.of("reports", "{\"r\":" + i + "}"));
      }
    }
    // enqueued through the orders node's own transaction: a report must still go to the reports node
    orders.enqueue("reports", "{\"r\":\"via-orders-node\"}");
    await().atMost(Duration.ofSeconds(20)).until(() -> deliveredBy.size() == 101);
    deliveredBy.forEach((payload, by) ->
        assertThat(by).as(payload).isEqualTo(payload.startsWith("{\"o\"") ? "orders-node" : "reports-node"));
  }

  @Test
  void nodesDeliverOnlyTheirShards() {
    Set<Integer> lower = new java.util.HashSet<>();
    Set<Integer> upper = new java.util.HashSet<>();
    for (int s = 0; s < Shards.COUNT; s++) {
      (s < Shards.COUNT / 2 ? lower : upper).add(s);
    }
    Herald a = start(node("lower").onlyShards(lower));
    start(node("upper").onlyShards(upper));
    for (int i = 0; i < 60; i++) {
      a.enqueue(NoticeRequest.of("orders", "{\"customer\":" + i + "}").shardKey("customer-" + i));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> deliveredBy.size() == 60);
    for (int i = 0; i < 60; i++) {
      int shard = Shards.of("customer-" + i, null);
      assertThat(deliveredBy.get("{\"customer\":" + i + "}")).isEqualTo(shard < Shards.COUNT / 2 ? "lower" : "upper");
    }
    assertThat(Set.copyOf(deliveredBy.values())).containsExactlyInAnyOrder("lower", "upper");
  }

  @Test
  void intakeIsRefusedWhileTheBacklogIsTooLargeAndAcceptedAgainOnceItDrains() throws Exception {
    // A node that delivers nothing (no definition is its), so due notices pile up.
    Herald idle = start(node("idle").onlyDefinitions(Set.of("reports")).maxBacklog(20));
    try (Connection c = idle.dataSource().getConnection()) {
      c.setAutoCommit(false); // one transaction, so that the backlog counter sees all 30 at once
      for (int i = 0; i < 30; i++) {
        idle.enqueue(c, NoticeRequest.of("orders", "{\"o\":" + i + "}"));
      }
      c.commit();
    }
    // The backlog is counted in the background; until the first count, intake is still accepted.
    java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
    BackPressureException refused = await().atMost(Duration.ofSeconds(5)).until(() -> {
      try {
        idle.enqueue("orders", "{\"try\":" + tries.incrementAndGet() + "}");
        return null;
      } catch (BackPressureException e) {
        return e;
      }
    }, java.util.Objects::nonNull);
    assertThat(refused.limit()).isEqualTo(20);
    assertThat(refused.backlog()).isGreaterThan(20);
    assertThat(refused.getMessage()).contains("nothing was written");
    String refusedPayload = "{\"try\":" + tries.get() + "}";
    int accepted = tries.get() - 1;
    assertThat(deliveredBy).isEmpty();

    start(node("worker").onlyDefinitions(Set.of("orders")));
    await().atMost(Duration.ofSeconds(20)).until(() -> deliveredBy.size() == 30 + accepted);
    await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
        .until(() -> idle.enqueue("orders", "{\"accepted\":true}") != null);
    await().atMost(Duration.ofSeconds(10)).until(() -> deliveredBy.containsKey("{\"accepted\":true}"));
    assertThat(deliveredBy).doesNotContainKey(refusedPayload);
    assertThat(idle.operations().query(NoticeQuery.all().page(0, 1000)).items())
        .extracting(Notice::payload).doesNotContain(refusedPayload);
  }

  @Test
  void anErrorInsideTheUnitOfWorkRollsEverythingBack() {
    Herald herald = start(node("n"));
    assertThatThrownBy(() -> herald.inTransaction(tx -> {
      tx.enqueue("orders", "{\"doomed\":true}");
      throw new AssertionError("boom");
    })).isInstanceOf(AssertionError.class);
    assertThat(herald.operations().query(NoticeQuery.all()).items()).isEmpty();
  }
}
