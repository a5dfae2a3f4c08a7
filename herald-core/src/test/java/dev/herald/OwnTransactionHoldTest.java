package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Notices due now fire from memory after the commit. In a caller's transaction they are inserted
 * under a provisional owner and adopted after the commit (one more statement, version 2); in
 * Herald's own transaction, where nothing else runs, they are inserted under the node's token and
 * held as written (version 1, no adoption).
 */
class OwnTransactionHoldTest {
  @TempDir Path dir;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(2);
  private Herald herald;

  @BeforeEach
  void start() {
    herald = Herald.builder().h2File(dir.resolve("herald")).nodeId("n").shutdownTimeout(Duration.ofSeconds(1))
        .define(NoticeDefinition.builder("held").handler("wait").build())
        .handler("wait", ctx -> {
          started.countDown();
          release.await(10, TimeUnit.SECONDS);
          return DeliveryResult.delivered();
        })
        .build().start();
  }

  @AfterEach
  void close() {
    release.countDown();
    herald.close();
  }

  @Test
  void heraldsOwnTransactionHoldsWithoutAdoptionACallersAdopts() throws Exception {
    UUID own = herald.enqueue("held", "{\"own\":1}").id();
    UUID callers = herald.inTransaction(tx -> tx.enqueue("held", "{\"callers\":1}")).id();
    assertThat(started.await(5, TimeUnit.SECONDS)).as("both fired from memory").isTrue();

    assertThat(ownerAndVersion(own)).as("own transaction: the token itself, as inserted")
        .matches("n#[^*]+ v1");
    assertThat(ownerAndVersion(callers)).as("caller's transaction: adopted from the provisional owner")
        .matches("n#[^*]+ v2");
    release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() ->
        herald.operations().find(own).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED
            && herald.operations().find(callers).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED);
  }

  @Test
  void workWithoutSavepointsHoldsItsNoticesAsWritten() throws Exception {
    UUID id = herald.inTransactionWithoutSavepoints(tx -> tx.enqueue("held", "{\"n\":1}")).id();
    await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 1);
    assertThat(ownerAndVersion(id)).matches("n#[^*]+ v1");
  }

  private String ownerAndVersion(UUID id) throws SQLException {
    try (Connection c = herald.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT owner, version FROM herald_notice WHERE id = ?")) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("live row of %s", id).isTrue();
        return rs.getString(1) + " v" + rs.getLong(2);
      }
    }
  }
}
