package dev.herald.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.store.TestDatabases;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fan-out on PostgreSQL through a running engine: events × 20 endpoints published from four threads
 * in transactions of ten events, every seventh transaction rolled back and every event published a
 * second time with its idempotency key. Every committed event reaches every endpoint exactly once,
 * nothing of a rolled-back transaction is delivered, and no key makes a second event.
 *
 * <p>500 events (10,000 notices) in CI; {@code -Dherald.fanout.events=10000} runs the 10,000
 * events × 20 endpoints (200,000 notices) on demand.
 */
class PostgresFanOutTest {
  private static final int ENDPOINTS = 20;
  private static final int EVENTS = Integer.getInteger("herald.fanout.events", 500);
  private static final int PER_TRANSACTION = 10;
  private static EmbeddedPostgres server;
  private static HikariDataSource pool;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.startPostgres();
    pool = TestDatabases.pool(TestDatabases.postgresUrl(server.getPort(), null), "postgres", "",
        TestDatabases.POSTGRES_SESSION_ZONE, 24);
  }

  @AfterAll
  static void stopServer() throws Exception {
    pool.close();
    server.close();
  }

  @Test
  void everyCommittedEventReachesEveryEndpointExactlyOnce() throws Exception {
    Map<String, AtomicInteger> byDelivery = new ConcurrentHashMap<>(); // "endpoint/event number"
    Map<UUID, AtomicInteger> byNotice = new ConcurrentHashMap<>();
    Herald.Builder b = Herald.builder().dataSource(pool).nodeId("fan-out").pollInterval(Duration.ofMillis(200))
        .maxConcurrentDeliveries(128);
    for (int i = 0; i < ENDPOINTS; i++) {
      String name = "partner-" + i;
      b.handler(name, ctx -> {
        byNotice.computeIfAbsent(ctx.notice().id(), k -> new AtomicInteger()).incrementAndGet();
        String n = ctx.payload().substring(ctx.payload().indexOf(':') + 1, ctx.payload().indexOf('}'));
        byDelivery.computeIfAbsent(name + "/" + n, k -> new AtomicInteger()).incrementAndGet();
        return DeliveryResult.delivered();
      });
    }
    try (Herald herald = b.build().start()) {
      herald.events().saveType(EventType.of("order.paid", null, "{\"type\": \"object\", \"required\": [\"n\"]}"));
      for (int i = 0; i < ENDPOINTS; i++) {
        herald.events().saveEndpoint(EventEndpoint.builder("partner-" + i).channel("local", "partner-" + i)
            .subscribe("order.paid").build());
      }
      Set<Integer> committed = ConcurrentHashMap.newKeySet();
      Set<Integer> rolledBack = ConcurrentHashMap.newKeySet();
      ExecutorService publishers = Executors.newFixedThreadPool(4);
      List<Future<?>> work = new ArrayList<>();
      for (int first = 0; first < EVENTS; first += PER_TRANSACTION) {
        int start = first;
        boolean rollBack = (first / PER_TRANSACTION) % 7 == 3;
        work.add(publishers.submit(() -> {
          List<Integer> numbers = new ArrayList<>();
          try {
            herald.inTransaction(tx -> {
              for (int n = start; n < Math.min(EVENTS, start + PER_TRANSACTION); n++) {
                tx.publish(EventRequest.of("order.paid", "{\"n\":" + n + "}").idempotencyKey("order-" + n));
                numbers.add(n);
              }
              if (rollBack) {
                throw new IllegalStateException("rolled back on purpose");
              }
              return null;
            });
            committed.addAll(numbers);
          } catch (IllegalStateException expected) {
            rolledBack.addAll(numbers);
          }
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      // Every committed event again, with its key: each returns the first and writes nothing.
      for (int n : committed) {
        if (n % 5 == 0) {
          assertThat(herald.events().publish(EventRequest.of("order.paid", "{\"n\":" + n + "}")
              .idempotencyKey("order-" + n)).created()).isFalse();
        }
      }
      publishers.shutdown();
      int expected = committed.size() * ENDPOINTS;
      await().atMost(Duration.ofMinutes(EVENTS > 1000 ? 20 : 2)).pollInterval(Duration.ofMillis(250))
          .until(() -> byNotice.size() >= expected && count("SELECT COUNT(*) FROM herald_notice") == 0);

      assertThat(rolledBack).isNotEmpty();
      assertThat(byNotice).hasSize(expected);
      assertThat(byNotice.values()).allSatisfy(c -> assertThat(c.get()).as("deliveries of one notice").isEqualTo(1));
      assertThat(byDelivery).hasSize(expected);
      assertThat(byDelivery.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
      for (int n : rolledBack) {
        assertThat(byDelivery).doesNotContainKey("partner-0/" + n);
      }
      assertThat(count("SELECT COUNT(*) FROM herald_event")).isEqualTo(committed.size());
      assertThat(count("SELECT COUNT(*) FROM herald_event_delivery")).isEqualTo(expected);
      assertThat(count("SELECT COUNT(*) FROM herald_notice_history WHERE status = 'SUCCEEDED'")).isEqualTo(expected);
      assertThat(herald.events().list(null, "order.paid", null, null, 0, 50).items())
          .allSatisfy(e -> assertThat(e.taken()).isEqualTo(ENDPOINTS));
    }
  }

  private static long count(String sql) throws Exception {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
