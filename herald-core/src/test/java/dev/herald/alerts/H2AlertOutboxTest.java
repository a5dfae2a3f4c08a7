package dev.herald.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.PendingAlert;
import dev.herald.store.DatabaseFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link AlertOutboxTest} on an H2 file, and an alert that outlives its process. */
class H2AlertOutboxTest extends AlertOutboxTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.h2();
  @TempDir Path dir;

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }

  @Test
  void anAlertRaisedBeforeTheProcessEndsIsDrainedByTheNextOne() {
    Path file = dir.resolve("restart");
    var notice = new Object() { java.util.UUID id; };
    try (Herald first = Herald.builder().h2File(file).pollInterval(Duration.ofMillis(50))
        .define(dev.herald.NoticeDefinition.builder("payments").handler("shop").maxAttempts(1)
            .alert(dev.herald.AlertPolicy.finalFailure()).build())
        .handler("shop", ctx -> dev.herald.DeliveryResult.fail("410 gone")).build().start()) {
      notice.id = first.enqueue(NoticeRequest.of("payments", "{}")).id();
      await().atMost(Duration.ofSeconds(10)).until(() -> first.operations().find(notice.id).orElseThrow().notice()
          .status() == NoticeStatus.DEAD);
      // the process ends without draining: nothing about the alert is left in memory
    }
    try (Herald second = Herald.builder().h2File(file).handler("shop", ctx -> dev.herald.DeliveryResult.delivered())
        .build()) {
      List<PendingAlert> drained = new ArrayList<>();
      second.alerts().drain(10, (alerts, tx) -> {
        drained.addAll(alerts);
        return alerts;
      });
      assertThat(drained).singleElement().satisfies(a -> {
        assertThat(a.noticeId()).isEqualTo(notice.id);
        assertThat(a.finalFailure()).isTrue();
        assertThat(a.endpoint()).as("a handler has no endpoint").isNull();
        assertThat(a.error()).contains("410 gone");
      });
    }
  }

  @Test
  void anAlertNobodyDrainsIsPurgedWithItsNotice() throws Exception {
    DataSource db = newDatabase();
    Herald h = Herald.builder().dataSource(db).pollInterval(Duration.ofMillis(50)).historyRetention(Duration.ofMillis(1))
        .define(dev.herald.NoticeDefinition.builder("payments").handler("shop").maxAttempts(1).build())
        .handler("shop", ctx -> dev.herald.DeliveryResult.fail("410 gone")).build().start();
    toClose.add(h);
    h.enqueue(NoticeRequest.of("payments", "{}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> count(db, "SELECT COUNT(*) FROM herald_alert") == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.purgeHistory() > 0 || count(db,
        "SELECT COUNT(*) FROM herald_notice_history") == 0);
    assertThat(count(db, "SELECT COUNT(*) FROM herald_alert")).isZero();
  }
}
