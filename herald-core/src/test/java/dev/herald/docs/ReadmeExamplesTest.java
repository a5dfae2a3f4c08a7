package dev.herald.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's transaction and testing examples do what the README says. */
class ReadmeExamplesTest {
  @TempDir Path dir;

  @Test
  void theTransactionExamplesWriteTheirNoticesWithTheBusinessData() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:file:" + dir.resolve("shop") + ";DB_CLOSE_ON_EXIT=FALSE");
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, paid BOOLEAN)");
      st.execute("INSERT INTO orders VALUES (7, FALSE)");
    }
    List<String> paid = new CopyOnWriteArrayList<>();
    try (Herald herald = Herald.builder().dataSource(ds)
        .define(NoticeDefinition.builder("order-paid").handler("paid").build())
        .define(NoticeDefinition.builder("order-auto-close").handler("paid").build())
        .handler("paid", ctx -> {
          paid.add(ctx.payload());
          return DeliveryResult.delivered();
        })
        .build()) {
      Notice n = ReadmeExamples.inTransaction(herald, 7);
      assertThat(n.status()).isEqualTo(NoticeStatus.PENDING);
      ReadmeExamples.join(herald, ds);
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        ReadmeExamples.enqueueOnConnection(herald, c);
        c.commit();
      }
      assertThat(herald.runDue()).as("three due now; the auto-close one waits 30 minutes").isEqualTo(3);
      assertThat(paid).containsOnly("{\"order\":7}", "{\"order\":42}").hasSize(3);
    }
  }

  @Test
  void theTwentyLineExampleDeliversThePaidOrderRightAfterItsCommit() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:file:" + dir.resolve("twenty") + ";DB_CLOSE_ON_EXIT=FALSE");
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, paid BOOLEAN)");
      st.execute("INSERT INTO orders VALUES (42, FALSE)");
    }
    List<String> told = new CopyOnWriteArrayList<>();
    OrderService orders = new OrderService();
    try (Herald herald = ReadmeExamples.twentyLines(ds, payload -> told.add(payload), orders)) {
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> told.contains("{\"order\":42}"));
      assertThat(orders.closed).as("the auto-close waits its 30 minutes").isEmpty();
    }
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT paid FROM orders WHERE id = 42")) {
      rs.next();
      assertThat(rs.getBoolean(1)).isTrue();
    }
  }

  @Test
  void theTestingExampleRunsTwoAttempts() {
    NoticeDetail detail = ReadmeExamples.testing(dir);
    assertThat(detail.attempts()).hasSize(2);
    assertThat(detail.notice().status()).isEqualTo(NoticeStatus.FAILED);
  }

  @Test
  void theOrderedExampleDeliversTheOrdersEventsInTheirOrder() {
    List<String> erp = new CopyOnWriteArrayList<>();
    try (Herald herald = Herald.builder().h2File(dir.resolve("ordered"))
        .handler("erp", ctx -> {
          erp.add(ctx.payload());
          return DeliveryResult.delivered();
        })
        .build()) {
      ReadmeExamples.ordered(herald);
      assertThat(herald.runDue()).isEqualTo(2); // the second is claimable only once the first is recorded
      assertThat(erp).containsExactly("{\"order\":42,\"event\":\"paid\"}", "{\"order\":42,\"event\":\"shipped\"}");
    }
  }
}
