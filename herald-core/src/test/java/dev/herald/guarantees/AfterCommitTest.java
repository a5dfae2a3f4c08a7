package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What happens right after the caller's commit: the fast path, and never an exception for a committed transaction. */
class AfterCommitTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  // Finding 5: on a small pool (4 connections), 80 concurrent enqueues starved it after commit: the
  // after-commit step needed a second connection while the caller's was still held; about half the
  // enqueues failed with a connection timeout, and the rest were delivered only after their lease ran out.
  @Test
  @Timeout(120)
  void eightyConcurrentEnqueuesOnAPoolOfFourAllSucceedAndAreDeliveredRightAfterCommit() throws Exception {
    Herald herald = Herald.builder()
        .jdbc(Herald.Builder.h2Url(dir.resolve("pooled")), "sa", "")
        .pool(config -> config.setMaximumPoolSize(4))
        .nodeId("n1")
        .lease(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(30)) // so a poll cannot be what delivers them in time
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", deliveries.delivering("n1"))
        .build();
    toClose.add(herald);
    herald.start();

    int threads = 80;
    Map<String, Long> returnedAt = new ConcurrentHashMap<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    toClose.add(pool::shutdownNow);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      String payload = "{\"i\":" + i + "}";
      done.add(pool.submit(() -> {
        go.await();
        try {
          herald.enqueue("ok", payload);
          returnedAt.put(payload, System.nanoTime());
        } catch (RuntimeException e) {
          failures.add(e);
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    assertThat(failures).as("enqueues that failed (of %d)", threads).isEmpty();

    // Each is delivered from memory right after its commit: far sooner than the 30 s poll or lease.
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> deliveries.all().size() >= threads);
    long slowestMillis = 0;
    for (Deliveries.Call call : deliveries.all()) {
      long lag = TimeUnit.NANOSECONDS.toMillis(call.startNanos - returnedAt.get(call.payload));
      slowestMillis = Math.max(slowestMillis, lag);
    }
    assertThat(slowestMillis).as("longest time from an enqueue returning to its delivery, in ms")
        .isLessThan(5_000);
  }

  // Concurrent callers share one adoption: whoever holds the lock adopts what the others queued, and
  // they return at once. A list left in the queue would be delivered only by the 30 s poll.
  @Test
  @Timeout(120)
  void callersCommittingAllTheTimeShareAdoptionsAndEveryNoticeIsDeliveredOnceRightAfterItsCommit() throws Exception {
    Herald herald = Herald.builder()
        .h2File(dir.resolve("sustained"))
        .nodeId("n1")
        .lease(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(30)) // so a poll cannot be what delivers them in time
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", deliveries.delivering("n1"))
        .build();
    toClose.add(herald);
    herald.start();

    int threads = 8;
    int each = 150;
    Map<String, Long> returnedAt = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    toClose.add(pool::shutdownNow);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(pool.submit(() -> {
        for (int i = 0; i < each; i++) {
          String payload = "{\"t\":" + thread + ",\"i\":" + i + "}";
          if (i % 3 == 0) {
            herald.inTransaction(tx -> tx.enqueueAll(List.of(
                dev.herald.NoticeRequest.of("ok", payload), dev.herald.NoticeRequest.of("ok", payload))));
          } else {
            herald.enqueue("ok", payload);
          }
          returnedAt.put(payload, System.nanoTime());
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    int expected = threads * each + threads * ((each + 2) / 3);
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> deliveries.all().size() >= expected);
    long slowestMillis = 0;
    for (Deliveries.Call call : deliveries.all()) {
      slowestMillis = Math.max(slowestMillis,
          TimeUnit.NANOSECONDS.toMillis(call.startNanos - returnedAt.get(call.payload)));
    }
    assertThat(slowestMillis).as("longest time from an enqueue returning to its delivery, in ms").isLessThan(5_000);
    await().during(Duration.ofMillis(500)).until(() -> deliveries.all().size() == expected);
  }

  // A release that fails (the database hiccups) used to leave its row under this node's token, which
  // keeps beating: no node, this one included, would ever claim it again. The node now gives its token
  // up, so the row is taken over once the old token lapses.
  @Test
  @Timeout(60)
  void aReleaseTheDatabaseRefusesDoesNotStrandItsNoticeUnderALiveNode() throws Exception {
    org.h2.jdbcx.JdbcConnectionPool db =
        org.h2.jdbcx.JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("release")), "sa", "");
    toClose.add(db::dispose);
    dev.herald.spi.NoticeStore real = dev.herald.store.jdbc.JdbcNoticeStore.create(db, java.time.Clock.systemUTC());
    java.util.concurrent.atomic.AtomicBoolean refuseARelease = new java.util.concurrent.atomic.AtomicBoolean(true);
    dev.herald.spi.NoticeStore store = (dev.herald.spi.NoticeStore) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {dev.herald.spi.NoticeStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("apply")) {
            @SuppressWarnings("unchecked")
            List<dev.herald.spi.Change> changes = (List<dev.herald.spi.Change>) args[0];
            boolean release = changes.size() == 1 && changes.getFirst().next().owner() == null
                && !changes.getFirst().next().status().isFinished() && changes.getFirst().attempt() == null;
            if (release && refuseARelease.compareAndSet(true, false)) {
              throw new dev.herald.StoreException("connection reset (injected)", new java.sql.SQLException("08006"));
            }
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Herald herald = Herald.builder()
        .dataSource(db)
        .store(store)
        .nodeId("n1")
        .pollInterval(Duration.ofMillis(100))
        .nodeTimeout(Duration.ofSeconds(2))
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("doomed").handler("ok").maxAttempts(1).build())
        .handler("ok", deliveries.delivering("n1"))
        .build();
    toClose.add(herald);
    herald.start();

    // Its definition is gone when the transaction commits, so the engine lets go of the pre-claimed
    // notice (a release), and the database refuses that release.
    Notice n = herald.inTransaction(tx -> {
      Notice enqueued = tx.enqueue("doomed", "{\"order\":7}");
      herald.definitions().delete("doomed");
      return enqueued;
    });
    assertThat(refuseARelease).as("the release was refused").isFalse();

    // Taken over once the given-up token lapses: the poll claims it and it fails for want of its
    // definition, with a clear error, instead of staying IN_FLIGHT under a live node for ever.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> herald.operations().find(n.id()).orElseThrow().notice().lastError() != null);
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().lastError()).contains("doomed");
  }

  // Finding 9: a failure in an after-commit step (here: the definition was deleted before the commit,
  // so the fast path cannot find it) surfaced to the caller as an exception, though the caller's
  // transaction, business writes included, had committed. The caller would think it failed and retry.
  @Test
  @Timeout(60)
  void afterCommitStepFailureDoesNotSurfaceAsAnExceptionOnceTheTransactionCommitted() throws Exception {
    Herald herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .nodeId("n1")
        .pollInterval(Duration.ofMillis(100))
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("doomed").handler("ok").build())
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", deliveries.delivering("n1"))
        .build();
    toClose.add(herald);
    herald.start();
    try (Connection c = herald.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE shop_order (id INT PRIMARY KEY)");
    }

    Notice returned = herald.inTransaction(tx -> {
      try (Statement st = tx.connection().createStatement()) {
        st.executeUpdate("INSERT INTO shop_order (id) VALUES (42)");
      }
      Notice n = tx.enqueue("doomed", "{\"order\":42}");
      // An operator removes the definition while this transaction is open (allowed: "its notices
      // still live fail with a clear error when due").
      herald.definitions().delete("doomed");
      return n;
    });

    assertThat(returned).as("the notice inTransaction returned").isNotNull();
    try (Connection c = herald.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM shop_order")) {
      rs.next();
      assertThat(rs.getInt(1)).as("business write committed").isEqualTo(1);
    }
    assertThat(herald.operations().find(returned.id())).as("notice committed").isPresent();
  }
}
