package dev.herald.store;

import static dev.herald.NoticeStatus.AWAITING_CONFIRM;
import static dev.herald.NoticeStatus.DEAD;
import static dev.herald.NoticeStatus.FAILED;
import static dev.herald.NoticeStatus.PENDING;
import static dev.herald.NoticeStatus.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.AttemptSample;
import dev.herald.DeliveryResult;
import dev.herald.DeliveryResult.Outcome;
import dev.herald.Notice;
import dev.herald.NoticeCounts;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeQuery;
import dev.herald.NoticeScope;
import dev.herald.spi.NoticeRow;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The reads every store answers for gauges, health and the console ({@link dev.herald.NoticeReports}):
 * counts per definition, searches by every criterion and within a scope, finished ids, attempt samples
 * and the backlog over time. Part of the store contract, so run on every database.
 */
public abstract class NoticeReportsContract extends NoticeStoreContract {
  private static final String OTHER = "other";
  private static final NoticeScope SHOP = NoticeScope.labelled("test_label", "notice_id", "label", "shop");
  private static final NoticeScope UNLABELLED = NoticeScope.unlabelled("test_label", "notice_id", "label");

  @Test
  void readsCountsPerDefinitionWithTheBacklogAndRecentDeadNotices() {
    insert(row().fireAt(T.minusSeconds(60)).due(T.minusSeconds(60)));
    insert(row().fireAt(T.plusSeconds(60)).due(T.plusSeconds(60)));
    insert(row().status(FAILED).attempts(1, 0).fireAt(T.minusSeconds(120)).due(T.plusSeconds(30)));
    insert(row().status(AWAITING_CONFIRM).attempts(1, 0).fireAt(T.minusSeconds(30)).due(T.plusSeconds(300)));
    archive(row(), DEAD, T.minusSeconds(3600));
    archive(row(), DEAD, T.minusSeconds(7200));
    archive(row(), SUCCEEDED, T.minusSeconds(60));
    insert(row().definition(OTHER).fireAt(T.minusSeconds(10)).due(T.minusSeconds(10)));
    archive(row().definition("only-history"), SUCCEEDED, T.minusSeconds(60));

    Map<String, NoticeCounts> counts = store.countByDefinition(T);

    assertThat(counts).as("definitions with live or DEAD notices only").containsOnlyKeys(DEF, OTHER);
    assertThat(counts.get(DEF)).isEqualTo(new NoticeCounts(1, 1, 4, 2, 3, T.minusSeconds(120)));
    assertThat(counts.get(OTHER)).isEqualTo(new NoticeCounts(1, 0, 1, 0, 1, T.minusSeconds(10)));
    NoticeCounts total = NoticeCounts.total(counts.values());
    assertThat(total).isEqualTo(new NoticeCounts(2, 1, 5, 2, 4, T.minusSeconds(120)));
    assertThat(total.backlogAge(T)).isEqualTo(Duration.ofSeconds(120));
    assertThat(store.countByDefinition(T.minusSeconds(121)).get(DEF).backlog()).as("as of an earlier instant")
        .isZero();

    assertThat(store.countDead(T.minusSeconds(3600), 100)).as("finished at or after").isEqualTo(1);
    assertThat(store.countDead(T.minusSeconds(3600).plusMillis(1), 100)).isZero();
    assertThat(store.countDead(T.minusSeconds(7200), 100)).isEqualTo(2);
    assertThat(store.countDead(T.minusSeconds(7200), 1)).as("capped").isEqualTo(1);
  }

  @Test
  void readsSearchesByEveryCriterionOverLiveAndArchivedNoticesNewestFirst() throws SQLException {
    Notice n1 = insert(row().created(T.minusSeconds(500)).key("k1").description("Order 100% paid_now")).notice();
    Notice n2 = archive(row().created(T.minusSeconds(400)).key("\u001fshop\u001fk1").description("refund"), DEAD, T)
        .notice();
    Notice n3 = insert(row().definition(OTHER).status(FAILED).attempts(1, 0).created(T.minusSeconds(300)).key("k2")
        .description("ORDER 7")).notice();
    Notice n4 = archive(row().created(T.minusSeconds(200)).description("order 100x paidx"), SUCCEEDED, T).notice();
    Notice n5 = insert(row().created(T.minusSeconds(100)).description("reminder")).notice();
    label(Map.of(n2.id(), "shop", n3.id(), "shop", n5.id(), "elsewhere"));
    NoticeCriteria all = NoticeCriteria.all();

    assertThat(search(all)).containsExactly(n5, n4, n3, n2, n1);
    assertThat(search(all.definition(DEF).statuses(Set.of(PENDING, DEAD)))).containsExactly(n5, n2, n1);
    assertThat(search(all.createdBetween(T.minusSeconds(400), T.minusSeconds(200)))).as("[from, to)")
        .containsExactly(n3, n2);
    assertThat(search(all.createdBetween(T.minusSeconds(200), T.minusSeconds(200)))).as("an empty range").isEmpty();

    assertThat(search(all.idempotencyKeys(Set.of("k1"), null))).containsExactly(n1);
    assertThat(search(all.idempotencyKeys(Set.of("k1"), "\u001fk1"))).as("or ending so").containsExactly(n2, n1);
    assertThat(search(all.idempotencyKeys(Set.of("k1", "k2"), null))).containsExactly(n3, n1);
    assertThat(search(all.idempotencyKeys(Set.of("k_"), null))).as("exact, not a pattern").isEmpty();

    assertThat(search(all.descriptionContains("order"))).as("ignoring case").containsExactly(n4, n3, n1);
    assertThat(search(all.descriptionContains("100%"))).as("% is a character").containsExactly(n1);
    assertThat(search(all.descriptionContains("paid_"))).as("_ is a character").containsExactly(n1);
    assertThat(search(all.descriptionContains("!"))).isEmpty();

    assertThat(search(all.scope(SHOP))).containsExactly(n3, n2);
    assertThat(search(all.scope(UNLABELLED))).as("no row in the scope's table").containsExactly(n4, n1);
    assertThat(search(all.scope(SHOP).statuses(Set.of(DEAD)))).containsExactly(n2);
    assertThat(search(all.scope(NoticeScope.labelled("test_label", "notice_id", "label", "nobody")))).isEmpty();

    assertThat(store.search(all, 1, 2).items()).containsExactly(n4, n3);
    assertThat(store.search(all, 1, 2).hasMore()).isTrue();
    assertThat(store.search(all, 4, 2).items()).containsExactly(n1);
    assertThat(store.search(all, 4, 2).hasMore()).isFalse();
    assertThat(store.searchIds(all, 3)).containsExactly(n5.id(), n4.id(), n3.id());
    assertThat(store.searchIds(all.scope(SHOP).descriptionContains("order"), 10)).containsExactly(n3.id());
    assertThat(store.query(NoticeQuery.all().definition(DEF)).items()).as("a query is a search")
        .isEqualTo(search(all.definition(DEF)));
  }

  @Test
  void readsFinishedIdsLiveCountsAndExistenceWithinAScope() throws SQLException {
    NoticeRow d1 = archive(row(), DEAD, T.minusSeconds(3 * 3600));
    NoticeRow d2 = archive(row(), DEAD, T.minusSeconds(2 * 3600));
    NoticeRow d3 = archive(row(), DEAD, T.minusSeconds(3600));
    NoticeRow d4 = archive(row().definition(OTHER), DEAD, T.minusSeconds(2 * 3600));
    NoticeRow l1 = insert(row());
    NoticeRow l2 = insert(row());
    NoticeRow l3 = insert(row());
    label(Map.of(d1.id(), "shop", d3.id(), "shop", d4.id(), "shop", l1.id(), "shop", l3.id(), "elsewhere"));
    Instant from = T.minusSeconds(4 * 3600);

    assertThat(store.finishedIds(DEF, DEAD, from, T, SHOP, 10)).as("oldest first").containsExactly(d1.id(), d3.id());
    assertThat(store.finishedIds(DEF, DEAD, from, T, SHOP, 1)).containsExactly(d1.id());
    assertThat(store.finishedIds(DEF, DEAD, from, T, null, 10)).containsExactly(d1.id(), d2.id(), d3.id());
    assertThat(store.finishedIds(DEF, DEAD, from, T, UNLABELLED, 10)).containsExactly(d2.id());
    assertThat(store.finishedIds(DEF, DEAD, T.minusSeconds(3 * 3600), T.minusSeconds(3600), SHOP, 10))
        .as("[from, to)").containsExactly(d1.id());
    assertThat(store.finishedIds(DEF, SUCCEEDED, from, T, null, 10)).isEmpty();

    assertThat(store.countLive(SHOP)).isEqualTo(1);
    assertThat(store.countLive(UNLABELLED)).isEqualTo(1);
    assertThat(store.countLive(null)).isEqualTo(3);

    UUID unknown = UUID.randomUUID();
    assertThat(store.existing(List.of(d1.id(), l2.id(), unknown))).containsExactlyInAnyOrder(d1.id(), l2.id());
    assertThat(store.existing(List.of())).isEmpty();
  }

  @Test
  void readsAttemptSamplesAndTheBacklogAtPastInstants() throws SQLException {
    NoticeRow delivered = archive(row().created(T.minusSeconds(600)).fireAt(T.minusSeconds(600)), SUCCEEDED,
        T.minusSeconds(300));
    NoticeRow dead = archive(row().definition(OTHER).created(T.minusSeconds(500)).fireAt(T.minusSeconds(500)), DEAD,
        T.minusSeconds(200));
    label(Map.of(dead.id(), "shop"));
    NoticeRow claimed = claimOne(insert(row()));
    assertThat(apply(attempt(claimed, DeliveryResult.retry("timeout"), T))).containsExactly(true);
    AttemptSample live = new AttemptSample(T, Outcome.RETRY, 1, T);
    AttemptSample failed = new AttemptSample(T.minusSeconds(200).minusMillis(5), Outcome.FAIL, 1,
        T.minusSeconds(500));
    AttemptSample ok = new AttemptSample(T.minusSeconds(300).minusMillis(5), Outcome.DELIVERED, 1,
        T.minusSeconds(600));
    Instant end = T.plusSeconds(1);

    assertThat(store.attemptSamples(T.minusSeconds(3600), end, null, null, 10)).as("newest first")
        .containsExactly(live, failed, ok);
    assertThat(store.attemptSamples(T.minusSeconds(3600), end, null, null, 2)).containsExactly(live, failed);
    assertThat(store.attemptSamples(T.minusSeconds(3600), end, OTHER, null, 10)).containsExactly(failed);
    assertThat(store.attemptSamples(T.minusSeconds(3600), end, null, SHOP, 10)).containsExactly(failed);
    assertThat(store.attemptSamples(T.minusSeconds(250), T, null, null, 10)).as("[from, to)").containsExactly(failed);

    List<Instant> at = List.of(T.minusSeconds(700), T.minusSeconds(550), T.minusSeconds(400), T.minusSeconds(250), T);
    assertThat(store.backlogAt(at, null, null)).as("past its fire time, not finished yet").containsExactly(0, 1, 2, 1, 1);
    assertThat(store.backlogAt(at, OTHER, null)).containsExactly(0, 0, 1, 1, 0);
    assertThat(store.backlogAt(at, null, SHOP)).containsExactly(0, 0, 1, 1, 0);
    assertThat(store.backlogAt(at, DEF, UNLABELLED)).containsExactly(0, 1, 1, 0, 1);
    assertThat(store.backlogAt(List.of(), null, null)).isEmpty();
    assertThat(delivered.notice().finishedAt()).isEqualTo(T.minusSeconds(300));
  }

  private List<Notice> search(NoticeCriteria criteria) {
    return store.search(criteria, 0, 50).items();
  }

  /** Labels notices in an application's table beside Herald's, as the server keeps tenants. */
  private void label(Map<UUID, String> labels) throws SQLException {
    var dialect = ((JdbcNoticeStore) store).dialect();
    String id = dialect.name().equals("mysql") ? "BINARY(16)" : "UUID";
    try (Connection c = dataSource().getConnection()) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE test_label (notice_id " + id + " NOT NULL PRIMARY KEY, label VARCHAR(40) NOT NULL)");
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO test_label (notice_id, label) VALUES (?, ?)")) {
        for (var e : labels.entrySet()) {
          dialect.setId(ps, 1, e.getKey());
          ps.setString(2, e.getValue());
          ps.executeUpdate();
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }
}
