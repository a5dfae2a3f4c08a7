package dev.herald.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.PendingAlert;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The alert outbox on every database: an alert is written with the outcome that raised it and
 * drained exactly once, by one drain of several racing. Subclasses give the database.
 */
abstract class AlertOutboxTest {
  protected final List<AutoCloseable> toClose = new ArrayList<>();

  /** A fresh, empty database. */
  protected abstract DataSource newDatabase() throws Exception;

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  protected Herald herald(DataSource db) {
    Herald h = Herald.builder().dataSource(db).nodeId("alerts").pollInterval(Duration.ofMillis(50))
        .define(NoticeDefinition.builder("payments").handler("shop")
            .alert(dev.herald.AlertPolicy.everyFailure()).retry("10ms").maxAttempts(2).build())
        .define(NoticeDefinition.builder("alert-sink").handler("sink").build())
        .handler("sink", ctx -> DeliveryResult.delivered())
        .build();
    toClose.add(h);
    return h;
  }

  @Test
  void anAlertIsWrittenWithItsOutcomeAndDrainedOnce() throws Exception {
    DataSource db = newDatabase();
    Herald h = herald(db).start();
    var notice = h.enqueue(NoticeRequest.of("payments", "{}").target("https://callback.example:8443/x https://b.example/y"));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.operations().find(notice.id()).orElseThrow().notice()
        .status() == NoticeStatus.DEAD);
    List<PendingAlert> seen = new ArrayList<>();
    assertThat(h.alerts().drain(10, (alerts, tx) -> {
      seen.addAll(alerts);
      for (PendingAlert a : alerts) {
        tx.enqueue(NoticeRequest.of("alert-sink", "{\"alert\":\"" + a.id() + "\"}"));
      }
      return alerts;
    })).isEqualTo(2);
    assertThat(seen).extracting(PendingAlert::failures).containsExactly(1, 2);
    assertThat(seen).extracting(PendingAlert::finalFailure).containsExactly(false, true);
    assertThat(seen).allSatisfy(a -> {
      assertThat(a.noticeId()).isEqualTo(notice.id());
      assertThat(a.definition()).isEqualTo("payments");
      assertThat(a.endpoint()).as("the first of the notice's own URLs").isEqualTo("https://callback.example:8443");
      assertThat(a.error()).as("the local channel reads a notice's target as its handler").contains("no handler named");
    });
    assertThat(h.alerts().drain(10, (alerts, tx) -> alerts)).as("consumed rows are gone").isZero();
    // the alert notices are delivered: counted once finished (live and history read apart could see one twice)
    await().atMost(Duration.ofSeconds(10)).until(() -> count(db,
        "SELECT COUNT(*) FROM herald_notice WHERE definition = 'alert-sink'") == 0);
    assertThat(count(db, "SELECT COUNT(*) FROM herald_notice_history WHERE definition = 'alert-sink'")).isEqualTo(2);
  }

  @Test
  void alertsTheHandlerKeepsStayAndAFailingHandlerConsumesNothing() throws Exception {
    DataSource db = newDatabase();
    Herald h = herald(db);
    insertAlerts(db, 3);
    assertThat(h.alerts().drain(10, (alerts, tx) -> alerts.subList(0, 1))).isEqualTo(1);
    try {
      h.alerts().drain(10, (alerts, tx) -> {
        tx.enqueue(NoticeRequest.of("alert-sink", "{}"));
        throw new IllegalStateException("mail server refused");
      });
    } catch (IllegalStateException expected) {
      // rolled back
    }
    assertThat(count(db, "SELECT COUNT(*) FROM herald_notice WHERE definition = 'alert-sink'")).isZero();
    assertThat(h.alerts().drain(10, (alerts, tx) -> alerts)).isEqualTo(2);
  }

  @Test
  void drainsRacingOnTwoConnectionsSendEveryAlertExactlyOnce() throws Exception {
    DataSource db = newDatabase();
    Herald a = herald(db);
    Herald b = herald(db);
    int total = 300;
    insertAlerts(db, total);
    AtomicInteger consumed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (Herald h : List.of(a, b, a, b)) {
        runs.add(pool.submit(() -> {
          while (consumed.get() < total) {
            try {
              consumed.addAndGet(h.alerts().drain(7, (alerts, tx) -> {
                for (PendingAlert p : alerts) {
                  tx.enqueue(NoticeRequest.of("alert-sink", "{\"alert\":\"" + p.id() + "\"}"));
                }
                return alerts;
              }));
            } catch (dev.herald.StoreException lostTheRace) {
              // another drain took some of these: nothing committed, try again
            }
          }
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(consumed.get()).isEqualTo(total);
    assertThat(count(db, "SELECT COUNT(*) FROM herald_alert")).isZero();
    List<String> payloads = new ArrayList<>();
    try (Connection c = db.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT payload FROM herald_notice WHERE definition = 'alert-sink'")) {
      while (rs.next()) {
        payloads.add(rs.getString(1));
      }
    }
    Set<String> distinct = new HashSet<>(payloads);
    assertThat(payloads).as("one notice per alert, none twice").hasSize(total);
    assertThat(distinct).hasSize(total);
  }

  /** Many waiting alerts at once, written directly: failing that many notices would only slow the test. */
  protected static void insertAlerts(DataSource db, int n) throws Exception {
    try (Connection c = db.getConnection(); var ps = c.prepareStatement("INSERT INTO herald_alert (id, notice_id,"
        + " definition, endpoint, failures, final_failure, error, raised_at) VALUES (?, ?, 'payments', NULL, 1, TRUE,"
        + " 'boom', ?)")) {
      boolean mysql = c.getMetaData().getDatabaseProductName().toLowerCase().matches(".*(mysql|mariadb).*");
      for (int i = 0; i < n; i++) {
        java.util.UUID id = dev.herald.engine.Ids.next(java.time.Clock.systemUTC());
        java.util.UUID notice = java.util.UUID.randomUUID();
        ps.setObject(1, mysql ? bytes(id) : id);
        ps.setObject(2, mysql ? bytes(notice) : notice);
        ps.setLong(3, System.currentTimeMillis());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static byte[] bytes(java.util.UUID id) {
    return java.nio.ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
        .array();
  }

  protected static long count(DataSource db, String sql) throws Exception {
    try (Connection c = db.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
