package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.spi.NoticeStore;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several engines on one database, and the cost of recording outcomes under load. */
class SharedDatabaseTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private JdbcConnectionPool pool() {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("shared")), "sa", "");
    pool.setMaxConnections(32);
    toClose.add(pool::dispose);
    return pool;
  }

  @Test
  void threeEnginesOnOneDatabaseDeliverEveryNoticeOnceWhileLeasesHold() throws Exception {
    int total = 3_000;
    Map<String, String> deliveredBy = new ConcurrentHashMap<>();
    AtomicInteger duplicates = new AtomicInteger();
    List<Herald> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String node = "node-" + i;
      Herald h = Herald.builder()
          .dataSource(pool())
          .nodeId(node)
          .claimBatch(50)
          .pollInterval(Duration.ofMillis(20))
          .define(NoticeDefinition.builder("shared").handler("count").build())
          .handler("count", ctx -> {
            if (deliveredBy.putIfAbsent(ctx.payload(), node) != null) {
              duplicates.incrementAndGet();
            }
            return DeliveryResult.delivered();
          })
          .build();
      toClose.add(h);
      nodes.add(h);
    }
    // Written outside any engine, so all three race for them through claims.
    try (Connection c = nodes.getFirst().dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < total; i++) {
        nodes.getFirst().enqueue(c, NoticeRequest.of("shared", "{\"i\":" + i + "}"));
      }
      c.commit();
    }
    nodes.forEach(Herald::start);

    await().atMost(Duration.ofSeconds(60)).until(() -> deliveredBy.size() == total);
    await().atMost(Duration.ofSeconds(10)).until(() -> nodes.getFirst().operations()
        .query(NoticeQuery.all().statuses(NoticeStatus.SUCCEEDED).page(0, 1000)).items().size() == 1000
        && nodes.getFirst().operations().query(NoticeQuery.all().statuses(NoticeStatus.PENDING,
            NoticeStatus.IN_FLIGHT, NoticeStatus.FAILED).page(0, 1)).items().isEmpty());
    assertThat(duplicates).as("no notice delivered twice").hasValue(0);
    assertThat(deliveredBy.values()).as("every node took a share").contains("node-0", "node-1", "node-2");
  }

  @Test
  void outcomesAreRecordedInGroupCommitsSoTransactionsAreFarFewerThanDeliveries() throws Exception {
    JdbcConnectionPool pool = pool();
    AtomicInteger transactions = new AtomicInteger();
    AtomicInteger outcomes = new AtomicInteger();
    NoticeStore real = JdbcNoticeStore.create(pool, Clock.systemUTC());
    NoticeStore counting = (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {NoticeStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("apply")) {
            transactions.incrementAndGet();
            outcomes.addAndGet(((List<?>) args[0]).size());
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    int total = 5_000;
    Herald herald = Herald.builder()
        .dataSource(pool)
        .store(counting)
        .define(NoticeDefinition.builder("bulk").handler("noop").build())
        .handler("noop", ctx -> DeliveryResult.delivered())
        .build();
    toClose.add(herald);
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < total; i++) {
        herald.enqueue(c, NoticeRequest.of("bulk", "{}"));
      }
      c.commit();
    }
    herald.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> outcomes.get() >= total);
    assertThat(outcomes.get()).isEqualTo(total);
    assertThat(transactions.get())
        .as("%d outcomes in %d transactions", outcomes.get(), transactions.get())
        .isLessThan(total / 5);
  }

}
