package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Two nodes on one database working through a backlog larger than their delivery slots. */
class TwoNodeBacklogTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private Herald node(String id) {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("shared")), "sa", "");
    pool.setMaxConnections(32);
    toClose.add(pool::dispose);
    Herald h = Herald.builder()
        .dataSource(pool)
        .nodeId(id)
        .lease(Duration.ofSeconds(2))
        .lookAhead(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(100))
        .maxConcurrentDeliveries(2)
        .shutdownTimeout(Duration.ofSeconds(5))
        .define(NoticeDefinition.builder("slow").handler("slow").retry("1s").build())
        .handler("slow", deliveries.handler(id, ctx -> {
          TimeUnit.MILLISECONDS.sleep(300);
          return DeliveryResult.delivered();
        }))
        .build();
    toClose.add(h);
    return h;
  }

  // Finding 1: notices taken out of the timer that wait for a delivery slot were not covered by
  // lease renewal; their lease ran out while they waited, the other node claimed them, and both
  // delivered the same notice at overlapping times.
  @Test
  @Timeout(120)
  void noticesWaitingForADeliverySlotKeepTheirLeaseSoTwoNodesNeverDeliverOneNoticeAtOnce() throws Exception {
    Herald a = node("node-a");
    Herald b = node("node-b");
    a.start();
    // About half a heartbeat (lease / 3, 667 ms) after the start, so that the leases of this backlog
    // do not run out in step with node A's renewals.
    TimeUnit.MILLISECONDS.sleep(300);
    int total = 40;
    List<Notice> notices = new ArrayList<>();
    // Written outside the fast path, all due now: node A claims the whole backlog at its next poll.
    try (Connection c = a.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < total; i++) {
        notices.add(a.enqueue(c, NoticeRequest.of("slow", "{\"i\":" + i + "}")));
      }
      c.commit();
    }
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> notices.stream()
        .allMatch(n -> a.operations().find(n.id()).orElseThrow().notice().status() != NoticeStatus.PENDING));
    // Node B joins with free slots; it may claim only what node A's leases no longer cover.
    b.start();

    // 40 x 300 ms on 2 slots is 6 s of work for one node; leave ample room.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> notices.stream()
        .allMatch(n -> a.operations().find(n.id()).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED));

    assertThat(deliveries.overlapping())
        .as("deliveries of one notice that ran at the same time (on two nodes, or twice on one)")
        .isEmpty();
    // Every notice delivered, and (no node crashed, no lease had to lapse) each exactly once.
    List<String> notOnce = notices.stream().filter(n -> deliveries.count(n.id()) != 1)
        .map(n -> n.payload() + " x" + deliveries.count(n.id())).toList();
    assertThat(notOnce).as("notices not delivered exactly once (payload x handler calls)").isEmpty();
  }
}
