package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding 11: a receiver that is busy (a channel deferring while its endpoint is at its concurrency
 * limit) made every waiting notice's row be rewritten every 200–300 ms. Database writes must grow
 * with deliveries, not with the backlog divided by the deferral period.
 */
class DeferralChurnTest {
  @TempDir Path dir;

  @Test
  @Timeout(60)
  void noticesWaitingForABusyReceiverAreNotRewrittenWhileTheyWait() throws Exception {
    AtomicBoolean busy = new AtomicBoolean(true);
    Path db = dir.resolve("churn");
    try (Herald herald = Herald.builder().h2File(db)
        .define(NoticeDefinition.builder("busy").handler("busy").build())
        .handler("busy", ctx -> busy.get()
            ? DeliveryResult.defer(Duration.ofMillis(250), "endpoint busy")
            : DeliveryResult.delivered())
        .pollInterval(Duration.ofMillis(100))
        .build()) {
      herald.start();
      List<Notice> notices = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        notices.add(herald.enqueue("busy", "{\"n\":" + i + "}"));
      }
      Thread.sleep(3_000); // about twelve deferrals each
      busy.set(false);
      await().atMost(Duration.ofSeconds(20)).until(() -> notices.stream()
          .allMatch(n -> herald.operations().find(n.id()).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED));
    }
    try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + db.toAbsolutePath(), "sa", "");
        ResultSet rs = c.createStatement().executeQuery("SELECT MAX(version) FROM herald_notice_history")) {
      rs.next();
      // insert (provisionally held), adoption, outcome: at most a claim more if a poll took one
      assertThat(rs.getLong(1)).as("row versions of a notice that waited through a dozen deferrals").isLessThanOrEqualTo(4);
    }
  }
}
