package dev.herald.store;

import static dev.herald.NoticeStatus.AWAITING_CONFIRM;
import static dev.herald.NoticeStatus.CANCELLED;
import static dev.herald.NoticeStatus.DEAD;
import static dev.herald.NoticeStatus.FAILED;
import static dev.herald.NoticeStatus.IN_FLIGHT;
import static dev.herald.NoticeStatus.PENDING;
import static dev.herald.NoticeStatus.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.AlertPolicy;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.engine.Transitions;
import dev.herald.StoreException;
import dev.herald.faults.FaultyDataSource;
import dev.herald.spi.Applied;
import dev.herald.spi.Change;
import dev.herald.spi.Claim;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link NoticeStore} over a database must meet, written once and run against
 * each database by a subclass (in the style of db-scheduler's CompatibilityTest). A subclass gives
 * a fresh, empty database per test through {@link #dataSource()}.
 *
 * <p>All times are whole milliseconds around a fixed instant {@link #T}, and every assertion is on
 * exact values: a store that loses a millisecond, a field or a version bump fails here.
 */
public abstract class NoticeStoreContract {

  /** The fixed "now" of every test. */
  protected static final Instant T = Instant.parse("2025-03-14T09:26:53.589Z");

  protected static final String DEF = "orders.paid";
  private static final NoticeDefinition DEFINITION =
      NoticeDefinition.builder(DEF).handler("record").retry("10s").maxAttempts(5).build();

  protected final Clock clock = Clock.fixed(T, ZoneOffset.UTC);
  protected NoticeStore store;

  /** A fresh, empty database for each test; called once or more per test, always the same one. */
  protected abstract DataSource dataSource();

  @BeforeEach
  void createStore() {
    store = JdbcNoticeStore.create(dataSource(), clock);
    store.migrate();
  }

  // ================================================================ schema

  @Test
  void migrateTwiceIsHarmless() throws SQLException {
    long versions = count("SELECT COUNT(*) FROM herald_schema_version");
    store.migrate();
    new JdbcNoticeStore(dataSource(), ((JdbcNoticeStore) store).dialect(), clock).migrate();

    assertThat(versions).isGreaterThanOrEqualTo(3);
    assertThat(count("SELECT COUNT(*) FROM herald_schema_version")).isEqualTo(versions);
    // Every listed script once, up to the last one (numbers need not be contiguous: branches take numbers ahead)
    List<String> scripts = listedMigrations(((JdbcNoticeStore) store).dialect().name());
    assertThat(versions).isEqualTo(scripts.size());
    assertThat(count("SELECT MAX(version) FROM herald_schema_version"))
        .isEqualTo(Long.parseLong(scripts.getLast().substring(1, scripts.getLast().indexOf("__"))));
    assertThat(count("SELECT COUNT(*) FROM herald_schema_version WHERE version = 1 AND applied_at = ?",
        T.toEpochMilli())).isEqualTo(1);
    NoticeRow r = insert(row());
    assertThat(store.find(r.id())).contains(r);
  }

  private static List<String> listedMigrations(String dialect) {
    try (var in = NoticeStoreContract.class.getClassLoader()
        .getResourceAsStream("db/herald/" + dialect + "/migrations.txt")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  // ================================================================ definitions

  @Test
  void definitionsAreSavedFoundListedByNameUpdatedAndDeleted() throws SQLException {
    NoticeDefinition full = NoticeDefinition.builder("payments.settled")
        .channel("http", "https://example.test/hooks/settled?x=1&y=2")
        .retry("exponential(base=1s, factor=2.5, cap=1h, jitter=0.2)")
        .maxAttempts(7)
        .maxInterval(Duration.ofMinutes(30))
        .alert(AlertPolicy.afterFailures(3))
        .confirmWithin(Duration.ofSeconds(90))
        .description("settled payments, with ünïcödé")
        .build();
    NoticeDefinition minimal = NoticeDefinition.builder("a.first").handler("h").build();
    NoticeDefinition perAttempt = NoticeDefinition.builder("z_last").handler("h2")
        .retry("1:0s, 2:1m, 3:2m, 4:10m, 5:1h").unlimitedAttempts().alert(AlertPolicy.everyFailure()).build();

    store.saveDefinition(full, T);
    store.saveDefinition(perAttempt, T);
    store.saveDefinition(minimal, T);

    NoticeDefinition found = store.findDefinition("payments.settled").orElseThrow();
    assertThat(found).isEqualTo(full);
    assertThat(found.retrySchedule().text()).isEqualTo("exponential(base=1s, factor=2.5, cap=1h, jitter=0.2)");
    assertThat(found.maxInterval()).isEqualTo(Duration.ofMinutes(30));
    assertThat(found.alertPolicy()).isEqualTo(AlertPolicy.afterFailures(3));
    assertThat(found.alertPolicy().text()).isEqualTo("after:3");
    assertThat(found.confirmRequired()).isTrue();
    assertThat(found.confirmTimeout()).isEqualTo(Duration.ofSeconds(90));

    NoticeDefinition foundMinimal = store.findDefinition("a.first").orElseThrow();
    assertThat(foundMinimal).isEqualTo(minimal);
    assertThat(foundMinimal.maxInterval()).isNull();
    assertThat(foundMinimal.description()).isNull();
    assertThat(foundMinimal.retrySchedule().text()).isEqualTo(NoticeDefinition.DEFAULT_SCHEDULE);
    assertThat(foundMinimal.confirmRequired()).isFalse();
    assertThat(store.findDefinition("z_last").orElseThrow().maxAttempts()).isEqualTo(NoticeDefinition.UNLIMITED);
    assertThat(store.findDefinition("missing")).isEmpty();

    assertThat(store.listDefinitions()).containsExactly(minimal, full, perAttempt);

    NoticeDefinition changed = full.toBuilder()
        .channel("local", "settled-handler")
        .retry("5s, 5m, 1h, 1d")
        .maxAttempts(3)
        .maxInterval(null)
        .alert(AlertPolicy.never())
        .confirmRequired(false)
        .confirmTimeout(Duration.ofMinutes(2))
        .description(null)
        .build();
    store.saveDefinition(changed, T.plusSeconds(60));

    assertThat(store.findDefinition("payments.settled")).contains(changed);
    assertThat(store.listDefinitions()).containsExactly(minimal, changed, perAttempt);
    assertThat(count("SELECT COUNT(*) FROM herald_definition WHERE name = ? AND created_at = ? AND updated_at = ?",
        "payments.settled", T.toEpochMilli(), T.plusSeconds(60).toEpochMilli()))
        .as("an update keeps created_at and moves updated_at").isEqualTo(1);

    assertThat(store.deleteDefinition("payments.settled")).isTrue();
    assertThat(store.deleteDefinition("payments.settled")).isFalse();
    assertThat(store.findDefinition("payments.settled")).isEmpty();
    assertThat(store.listDefinitions()).containsExactly(minimal, perAttempt);
  }

  @Test
  void aDefinitionWithoutTargetIsStoredAsNullAndAnUpgradedDatabaseTurnsTheServersPlaceholdersIntoIt()
      throws SQLException {
    NoticeDefinition perNotice = NoticeDefinition.builder("callback").perNoticeTarget("http").retry("10s").build();
    store.saveDefinition(perNotice, T);
    assertThat(store.findDefinition("callback")).contains(perNotice);
    assertThat(store.listDefinitions()).containsExactly(perNotice);
    assertThat(count("SELECT COUNT(*) FROM herald_definition WHERE name = ? AND target IS NULL", "callback"))
        .isEqualTo(1);
    store.deleteDefinition("callback");

    // Back to a database of version 12: target NOT NULL, herald-server's sentinel standing for "each notice's own"
    String dialect = ((JdbcNoticeStore) store).dialect().name();
    execute(dialect.equals("mysql") ? "ALTER TABLE herald_definition MODIFY target VARCHAR(2000) NOT NULL"
        : "ALTER TABLE herald_definition ALTER COLUMN target SET NOT NULL");
    execute("DELETE FROM herald_schema_version WHERE version >= 13"); // and what came later, which migrate() then reapplies
    for (String column : List.of("first_attempt_started_at", "first_attempt_ms", "first_attempt_outcome",
        "first_attempt_detail", "first_attempt_node")) {
      execute("ALTER TABLE herald_notice_history DROP COLUMN " + column);
    }
    String sentinel = "https://per-notice-callback-url.invalid/";
    store.saveDefinition(NoticeDefinition.builder("callback").channel("http", sentinel).retry("10s").build(), T);
    store.saveDefinition(NoticeDefinition.builder("herald-alert-webhook")
        .channel("http", "https://alert-webhook.invalid/").build(), T);
    store.saveDefinition(NoticeDefinition.builder("herald-alert-mail").channel("alert-mail", "recipients").build(), T);
    NoticeDefinition own = NoticeDefinition.builder("hook").channel("http", "https://shop.example/hook").build();
    store.saveDefinition(own, T);
    NoticeDefinition recipients = NoticeDefinition.builder("list").channel("mail", "recipients").build();
    store.saveDefinition(recipients, T);

    store.migrate();

    assertThat(count("SELECT COUNT(*) FROM herald_schema_version WHERE version = 13")).isEqualTo(1);
    assertThat(store.findDefinition("callback")).contains(perNotice);
    assertThat(store.findDefinition("herald-alert-webhook").orElseThrow().perNoticeTarget()).isTrue();
    assertThat(store.findDefinition("herald-alert-mail").orElseThrow().perNoticeTarget()).isTrue();
    assertThat(store.findDefinition("hook")).contains(own);
    assertThat(store.findDefinition("list")).as("only the server's own placeholders").contains(recipients);
    NoticeDefinition another = NoticeDefinition.builder("another").perNoticeTarget("http").build();
    store.saveDefinition(another, T);
    assertThat(store.findDefinition("another")).contains(another);
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  // ================================================================ insert

  @Test
  void insertThenFindReturnsAnEqualRow() {
    NoticeRow failed = row()
        .payload("{\"order\":42,\"items\":[1,2,3],\"name\":\"Zoë\"}")
        .description("order 42, second try")
        .key("order-42")
        .status(FAILED)
        .attempts(3, 1)
        .version(4)
        .fireAt(T.minusSeconds(600))
        .due(T.plusMillis(12_345))
        .lastAttempt(T.minusMillis(5_001), "HTTP 503: Service Unavailable")
        .created(T.minusSeconds(900))
        .updated(T.minusMillis(5_000))
        .build();
    NoticeRow leased = row().leasedBy("node-a", T.plusSeconds(30)).build();
    NoticeRow bare = row().description(null).build();

    assertThat(insertResult(failed)).isEqualTo(new InsertResult(failed, true));
    insert(leased);
    insert(bare);

    assertThat(store.find(failed.id())).contains(failed);
    assertThat(store.find(leased.id())).contains(leased);
    NoticeRow found = store.find(bare.id()).orElseThrow();
    assertThat(found).isEqualTo(bare);
    assertThat(found.owner()).isNull();
    assertThat(found.leaseUntil()).isEqualTo(Instant.EPOCH);
    assertThat(found.notice().lastAttemptAt()).isNull();
    assertThat(found.notice().finishedAt()).isNull();
    assertThat(store.find(UUID.randomUUID())).isEmpty();
  }

  @Test
  void anIdempotencyKeyIsUsedOncePerDefinition() throws SQLException {
    NoticeRow first = row().key("k-1").build();
    NoticeRow again = row().key("k-1").payload("{\"other\":true}").build();
    NoticeRow otherDefinition = row().definition("orders.shipped").key("k-1").due(T.plusSeconds(60)).build();

    assertThat(insertResult(first)).isEqualTo(new InsertResult(first, true));
    assertThat(insertResult(again)).isEqualTo(new InsertResult(first, false));
    assertThat(insertResult(otherDefinition)).isEqualTo(new InsertResult(otherDefinition, true));

    assertThat(store.find(again.id())).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM herald_notice")).isEqualTo(2);

    // The key outlives the move to history: it still points at the finished notice.
    NoticeRow claimed = claimOne(first);
    assertThat(apply(Transitions.move(claimed, CANCELLED, null, T))).containsExactly(true);
    NoticeRow archived = store.find(first.id()).orElseThrow();
    InsertResult late = insertResult(row().key("k-1").build());
    assertThat(late.created()).isFalse();
    assertThat(late.row()).isEqualTo(archived);
    assertThat(late.row().notice().finishedAt()).isEqualTo(T);
  }

  @Test
  void anInsertRolledBackByTheCallerLeavesNothing() throws SQLException {
    NoticeRow r = row().key("k-rolled-back").build();
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.insert(c, r).created()).isTrue();
      c.rollback();
    }

    assertThat(store.find(r.id())).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM herald_notice")).isZero();
    assertThat(count("SELECT COUNT(*) FROM herald_idempotency")).isZero();
    NoticeRow retry = row().key("k-rolled-back").build();
    assertThat(insertResult(retry)).as("the key was rolled back too").isEqualTo(new InsertResult(retry, true));
  }

  @Test
  void insertAllWritesEveryRowAndAnswersTakenKeysWithTheirHolderInOrder() throws SQLException {
    NoticeRow holder = insert(row().key("k-taken"));
    List<NoticeRow> rows = new ArrayList<>();
    for (int i = 0; i < 250; i++) { // two full multi-row inserts and a rest
      rows.add(row().due(T.plusSeconds(i)).build());
    }
    NoticeRow keyed = row().key("k-new").build();
    NoticeRow taken = row().key("k-taken").build();
    NoticeRow again = row().key("k-new").build();
    rows.add(100, keyed);
    rows.add(7, taken);
    rows.add(again);
    List<InsertResult> results;
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      results = store.insertAll(c, rows);
      c.commit();
    }

    assertThat(results).hasSize(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      NoticeRow r = rows.get(i);
      if (r == taken) {
        assertThat(results.get(i)).isEqualTo(new InsertResult(holder, false));
      } else if (r == again) {
        assertThat(results.get(i)).as("a key repeated in the list").isEqualTo(new InsertResult(keyed, false));
      } else {
        assertThat(results.get(i)).isEqualTo(new InsertResult(r, true));
      }
    }
    assertThat(count("SELECT COUNT(*) FROM herald_notice")).isEqualTo(1 + 250 + 1);
    assertThat(store.find(rows.get(0).id())).contains(rows.get(0));
    assertThat(store.find(rows.get(180).id())).contains(rows.get(180));
    assertThat(store.find(keyed.id())).contains(keyed);
    assertThat(store.find(again.id())).isEmpty();
  }

  @Test
  void insertAllKeepsEveryColumnOfEveryRowWhateverItsText() throws SQLException {
    // Text that a bulk path (COPY's text format on PostgreSQL) must escape, and nulls beside values.
    String[] texts = {"tab\there", "line\nbreak\r\nwindows", "back\\slash \\N \\. \\t", "quote ' \" ; --",
        "unicode \u00e9 \u2713 \ud83d\ude00", "", " lead and trail "};
    String[] payloads = {"{\t\"a\":1\n}", "{\"escaped\":\"tab\\tnl\\nbs\\\\q\\\"\"}", "[1,2,3]", "\"\\\\N\"", "{}"};
    List<NoticeRow> rows = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String text = texts[i % texts.length];
      boolean odd = i % 2 == 1;
      Notice n = new Notice(UUID.randomUUID(), DEF, payloads[i % payloads.length], odd ? null : text, null,
          odd ? IN_FLIGHT : PENDING, i % 3, T.plusSeconds(i), T.plusSeconds(i + 1), odd ? T.minusSeconds(i) : null,
          odd ? "error: " + text : null, T, T.plusMillis(i), null, odd ? "https://example.com/hook?x=" + i : null,
          i % 3 == 0 ? "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" : null);
      rows.add(new NoticeRow(n, odd ? "n1*" : null, odd ? T.plusSeconds(30) : Instant.EPOCH, 1 + i, i % 2, i % 7));
    }
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.insertAll(c, rows)).allMatch(InsertResult::created);
      c.commit();
    }

    for (NoticeRow r : rows) {
      assertThat(store.find(r.id())).as("row %s", r.notice().payload()).contains(r);
    }
  }

  // ================================================================ claim

  @Test
  void claimLeasesDueFreeRowsOldestDueFirst() {
    Instant horizon = T.plusSeconds(5);
    Instant lease = T.plusSeconds(30);
    NoticeRow dueLater = insert(row().due(T.plusSeconds(2)));
    NoticeRow dueNow = insert(row().due(T));
    NoticeRow atHorizon = insert(row().due(horizon));
    NoticeRow beyond = insert(row().due(horizon.plusMillis(1)));
    NoticeRow failed = insert(row().status(FAILED).attempts(1, 0).due(T.minusSeconds(3)));
    NoticeRow confirmTimedOut = insert(row().status(AWAITING_CONFIRM).attempts(1, 0).due(T.minusSeconds(1)));
    NoticeRow heldByOther = insert(row().leasedBy("other", T.plusSeconds(60)).due(T.minusSeconds(5)));
    NoticeRow leaseEndsNow = insert(row().leasedBy("other", T).due(T.minusSeconds(6)));
    NoticeRow leaseExpired = insert(row().leasedBy("dead-node", T.minusMillis(1)).due(T.minusSeconds(4)));

    List<NoticeRow> got = store.claim(new Claim("n1", T, horizon, lease, 100));

    List<NoticeRow> expected = List.of(
        leased(leaseExpired, "n1", lease, T),
        leased(failed, "n1", lease, T),
        leased(confirmTimedOut, "n1", lease, T),
        leased(dueNow, "n1", lease, T),
        leased(dueLater, "n1", lease, T),
        leased(atHorizon, "n1", lease, T));
    assertThat(got).containsExactlyElementsOf(expected);
    for (NoticeRow r : got) {
      assertThat(r.status()).isEqualTo(IN_FLIGHT);
      assertThat(r.owner()).isEqualTo("n1");
      assertThat(r.leaseUntil()).isEqualTo(lease);
      assertThat(store.find(r.id())).as("stored as returned").contains(r);
    }
    assertThat(got.get(1).version()).isEqualTo(failed.version() + 1);
    assertThat(store.find(beyond.id())).contains(beyond);
    assertThat(store.find(heldByOther.id())).contains(heldByOther);
    assertThat(store.find(leaseEndsNow.id())).as("a lease ending exactly now is still held").contains(leaseEndsNow);

    assertThat(store.claim(new Claim("n2", T, horizon, lease, 100))).as("nothing left at the same time").isEmpty();
  }

  @Test
  void claimRespectsTheLimit() {
    List<NoticeRow> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(insert(row().due(T.minusSeconds(10 - i))));
    }
    Instant lease = T.plusSeconds(30);

    assertThat(ids(store.claim(new Claim("n1", T, T, lease, 2)))).containsExactly(rows.get(0).id(), rows.get(1).id());
    assertThat(ids(store.claim(new Claim("n2", T, T, lease, 2)))).containsExactly(rows.get(2).id(), rows.get(3).id());
    assertThat(ids(store.claim(new Claim("n1", T, T, lease, 2)))).containsExactly(rows.get(4).id());
    assertThat(store.claim(new Claim("n1", T, T, lease, 2))).isEmpty();
  }

  @Test
  void anExpiredLeaseIsTakenOverByAnotherOwner() {
    NoticeRow a = insert(row().due(T.minusSeconds(2)));
    NoticeRow b = insert(row().due(T.minusSeconds(1)));
    Instant lease = T.plusSeconds(30);
    List<NoticeRow> first = store.claim(new Claim("n1", T, T, lease, 10));
    assertThat(first).containsExactly(leased(a, "n1", lease, T), leased(b, "n1", lease, T));

    assertThat(store.claim(new Claim("n2", lease, lease, lease.plusSeconds(30), 10)))
        .as("the lease has not ended before its last millisecond").isEmpty();

    Instant later = lease.plusMillis(1);
    Instant newLease = later.plusSeconds(30);
    List<NoticeRow> takeover = store.claim(new Claim("n2", later, later, newLease, 10));

    assertThat(takeover).containsExactly(
        leased(first.get(0), "n2", newLease, later), leased(first.get(1), "n2", newLease, later));
    assertThat(takeover).extracting(NoticeRow::version).containsExactly(a.version() + 2, b.version() + 2);
    assertThat(store.find(a.id())).contains(takeover.get(0));
    assertThat(store.find(b.id())).contains(takeover.get(1));
  }

  @Test
  void racingClaimersNeverShareARow() throws Exception {
    int total = 2_000;
    Set<UUID> inserted = new HashSet<>();
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < total; i++) {
        NoticeRow r = row().due(T.minusMillis(total - i)).build();
        store.insert(c, r);
        inserted.add(r.id());
      }
      c.commit();
    }

    int threads = 4;
    Map<UUID, String> claimedBy = new ConcurrentHashMap<>();
    List<UUID> duplicates = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String owner = "node-" + t;
        done.add(pool.submit(() -> {
          start.await();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          int mine = 0;
          while (true) {
            List<NoticeRow> got = store.claim(new Claim(owner, T, T, T.plusSeconds(60), 50));
            if (got.isEmpty()) {
              // Losing a race also returns nothing: stop only once no row is left to claim.
              if (count("SELECT COUNT(*) FROM herald_notice WHERE lease_until < ?", T.toEpochMilli()) == 0) {
                return mine;
              }
              if (System.nanoTime() > deadline) {
                throw new AssertionError(owner + " gave up with rows still unclaimed");
              }
              Thread.yield();
              continue;
            }
            for (NoticeRow r : got) {
              if (claimedBy.putIfAbsent(r.id(), owner) != null) {
                duplicates.add(r.id());
              }
              assertThat(r.owner()).isEqualTo(owner);
            }
            mine += got.size();
          }
        }));
      }
      start.countDown();
      int sum = 0;
      for (Future<Integer> f : done) {
        sum += f.get(120, TimeUnit.SECONDS);
      }
      assertThat(duplicates).as("rows claimed twice").isEmpty();
      assertThat(sum).isEqualTo(total);
      assertThat(claimedBy.keySet()).isEqualTo(inserted);
    } finally {
      pool.shutdownNow();
    }
    assertThat(count("SELECT COUNT(*) FROM herald_notice WHERE status = 'IN_FLIGHT' AND version = 2")).isEqualTo(total);
    for (String owner : Set.copyOf(claimedBy.values())) {
      long mine = claimedBy.values().stream().filter(owner::equals).count();
      assertThat(count("SELECT COUNT(*) FROM herald_notice WHERE owner = ?", owner)).isEqualTo(mine);
    }
    assertThat(store.claim(new Claim("late", T, T, T.plusSeconds(60), 50))).isEmpty();
  }

  @Test
  void anUpdateAppliesOnceAndBumpsTheVersion() throws SQLException {
    NoticeRow claimed = claimOne(insert(row()));
    Change retry = attempt(claimed, DeliveryResult.retry("timeout"), T);
    assertThat(retry.next().status()).isEqualTo(FAILED);

    assertThat(apply(retry)).containsExactly(true);
    NoticeRow stored = store.find(claimed.id()).orElseThrow();
    assertThat(stored).isEqualTo(retry.next());
    assertThat(stored.version()).isEqualTo(claimed.version() + 1);
    assertThat(stored.notice().attempts()).isEqualTo(1);
    assertThat(stored.notice().nextAttemptAt()).isEqualTo(T.plusSeconds(10));
    assertThat(stored.notice().lastError()).isEqualTo("timeout");
    assertThat(stored.owner()).isNull();
    assertThat(stored.leaseUntil()).isEqualTo(Instant.EPOCH);

    assertThat(apply(retry)).as("the same change again is stale").containsExactly(false);
    assertThat(apply(Transitions.release(claimed, T.plusSeconds(1)))).as("built from the old version").containsExactly(false);
    assertThat(store.find(claimed.id())).contains(stored);
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", claimed.id())).isEqualTo(1);
  }

  @Test
  void aFinishedNoticeMovesToHistoryWithItsAttempt() throws SQLException {
    NoticeRow claimed = claimOne(insert(row().key("k-archive")));
    Change success = attempt(claimed, DeliveryResult.delivered("202 Accepted"), T);

    assertThat(apply(success)).containsExactly(true);

    NoticeRow archived = store.find(claimed.id()).orElseThrow();
    assertThat(archived).isEqualTo(success.next());
    assertThat(archived.status()).isEqualTo(SUCCEEDED);
    assertThat(archived.notice().finishedAt()).isEqualTo(T);
    assertThat(archived.notice().nextAttemptAt()).isNull();
    assertThat(archived.owner()).isNull();
    assertThat(archived.leaseUntil()).isEqualTo(Instant.EPOCH);
    assertThat(archived.version()).isEqualTo(claimed.version() + 1);
    assertThat(count("SELECT COUNT(*) FROM herald_notice WHERE id = ?", claimed.id())).isZero();
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history WHERE id = ?", claimed.id())).isEqualTo(1);
    assertThat(store.attempts(claimed.id())).containsExactly(success.attempt());
  }

  @Test
  void aTraceparentIsKeptThroughInsertClaimRetryArchiveSearchAndResend() throws SQLException {
    String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
    NoticeRow one = insert(row().traceparent(tp));
    NoticeRow none = insert(row());
    NoticeRow batched;
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      batched = store.insertAll(c, List.of(row().traceparent(other).build(), row().build())).getFirst().row();
      c.commit();
    }
    assertThat(stored(one).notice().traceparent()).isEqualTo(tp);
    assertThat(stored(none).notice().traceparent()).isNull();
    assertThat(stored(batched).notice().traceparent()).as("multi-row insert").isEqualTo(other);

    NoticeRow claimed = store.claim(new Claim("n1", T, T, T.plusSeconds(30), 1_000)).stream()
        .filter(r -> r.id().equals(one.id())).findFirst().orElseThrow();
    assertThat(claimed.notice().traceparent()).as("claimed").isEqualTo(tp);
    assertThat(apply(attempt(claimed, DeliveryResult.retry("503"), T))).containsExactly(true);
    NoticeRow retried = stored(one);
    assertThat(retried.notice().traceparent()).as("after a retry").isEqualTo(tp);

    Instant next = retried.notice().nextAttemptAt();
    NoticeRow again = store.claim(new Claim("n1", next, next, next.plusSeconds(30), 1_000)).stream()
        .filter(r -> r.id().equals(one.id())).findFirst().orElseThrow();
    assertThat(apply(attempt(again, DeliveryResult.fail("410"), T.plusSeconds(60)))).containsExactly(true);
    NoticeRow dead = stored(one);
    assertThat(dead.status()).isEqualTo(DEAD);
    assertThat(dead.notice().traceparent()).as("archived").isEqualTo(tp);
    assertThat(store.query(NoticeQuery.all().statuses(DEAD)).items()).extracting(Notice::traceparent)
        .as("search results").containsExactly(tp);
    assertThat(store.findFinished(DEF, DEAD, T, T.plusSeconds(3_600), 10)).extracting(r -> r.notice().traceparent())
        .containsExactly(tp);

    assertThat(apply(Transitions.resend(dead, T.plusSeconds(120)))).containsExactly(true);
    assertThat(stored(one).notice().traceparent()).as("resent").isEqualTo(tp);
  }

  @Test
  void aStaleArchiveChangesNothingAndLogsNoAttempt() throws SQLException {
    NoticeRow claimed = claimOne(insert(row()));
    Change retry = attempt(claimed, DeliveryResult.retry("first"), T);
    assertThat(apply(retry)).containsExactly(true);
    NoticeRow stored = store.find(claimed.id()).orElseThrow();

    Change staleDead = attempt(claimed, DeliveryResult.fail("gone"), T.plusSeconds(1));
    assertThat(staleDead.next().status()).isEqualTo(DEAD);
    assertThat(apply(staleDead)).containsExactly(false);

    assertThat(store.find(claimed.id())).contains(stored);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history")).isZero();
    assertThat(store.attempts(claimed.id())).containsExactly(retry.attempt());

    // And once archived, a change from the live version it replaced is stale too.
    NoticeRow again = claimOne(stored, T.plusSeconds(10));
    Change dead = attempt(again, DeliveryResult.fail("gone"), T.plusSeconds(10));
    assertThat(apply(dead)).containsExactly(true);
    assertThat(apply(attempt(again, DeliveryResult.delivered(), T.plusSeconds(11)))).containsExactly(false);
    assertThat(store.find(claimed.id())).contains(dead.next());
    assertThat(store.attempts(claimed.id())).containsExactly(retry.attempt(), dead.attempt());
  }

  @Test
  void aResendRestoresAFinishedNoticeToLiveWithAFreshBudget() throws SQLException {
    NoticeRow claimed = claimOne(insert(row().key("k-resend")));
    assertThat(apply(attempt(claimed, DeliveryResult.fail("refused"), T))).containsExactly(true);
    NoticeRow dead = store.find(claimed.id()).orElseThrow();
    assertThat(dead.status()).isEqualTo(DEAD);
    List<Attempt> attempts = store.attempts(claimed.id());
    assertThat(attempts).hasSize(1);
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", claimed.id()))
        .as("its only attempt kept in its history row").isZero();

    Instant later = T.plusSeconds(3_600);
    Change resend = Transitions.resend(dead, later);
    assertThat(apply(resend)).containsExactly(true);
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", claimed.id()))
        .as("given back to the attempt log").isEqualTo(1);
    assertThat(store.attempts(claimed.id())).isEqualTo(attempts);

    NoticeRow live = store.find(claimed.id()).orElseThrow();
    assertThat(live).isEqualTo(resend.next());
    assertThat(live.status()).isEqualTo(PENDING);
    assertThat(live.retryBase()).isEqualTo(1);
    assertThat(live.notice().attempts()).isEqualTo(1);
    assertThat(live.attemptsInBudget()).isZero();
    assertThat(live.notice().nextAttemptAt()).isEqualTo(later);
    assertThat(live.notice().finishedAt()).isNull();
    assertThat(live.version()).isEqualTo(dead.version() + 1);
    assertThat(count("SELECT COUNT(*) FROM herald_notice WHERE id = ?", claimed.id())).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history WHERE id = ?", claimed.id())).isZero();
    assertThat(store.attempts(claimed.id())).hasSize(1);

    assertThat(apply(resend)).as("a second resend from the same history row is stale").containsExactly(false);
    assertThat(store.find(claimed.id())).contains(live);
    assertThat(store.claim(new Claim("n2", later, later, later.plusSeconds(30), 10)))
        .containsExactly(leased(live, "n2", later.plusSeconds(30), later));
  }

  /**
   * A notice that finishes at its first attempt (most deliveries) keeps that attempt in its history
   * row: one row and one index entry less per delivery. Read back, it is the same attempt; a later
   * attempt, or one that leaves the notice live, goes to the attempt log.
   */
  @Test
  void aNoticeFinishedAtItsFirstAttemptKeepsThatAttemptInItsHistoryRow() throws SQLException {
    NoticeRow once = claimOne(insert(row()));
    Change delivered = attempt(once, DeliveryResult.delivered("200 OK\n" + "x".repeat(5000)), T);
    NoticeRow twice = claimOne(insert(row()));
    Change retried = attempt(twice, DeliveryResult.retry("503"), T);
    assertThat(written(store.apply(List.of(delivered, retried)))).containsExactly(true, true);

    Attempt a = delivered.attempt();
    assertThat(store.attempts(once.id())).containsExactly(new Attempt(a.noticeId(), 1, a.startedAt(), a.duration(),
        a.outcome(), Attempt.bound(a.detail()), a.node()));
    assertThat(store.attempts(once.id()).getFirst().detail()).hasSize(Attempt.MAX_DETAIL);
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", once.id())).isZero();
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", twice.id()))
        .as("a retry leaves the notice live: logged").isEqualTo(1);

    NoticeRow retrying = claimOne(store.find(twice.id()).orElseThrow(), T.plusSeconds(10));
    Change second = attempt(retrying, DeliveryResult.delivered(), T.plusSeconds(10));
    assertThat(apply(second)).containsExactly(true);
    assertThat(store.attempts(twice.id())).containsExactly(retried.attempt(), second.attempt());
    assertThat(count("SELECT COUNT(*) FROM herald_attempt WHERE notice_id = ?", twice.id())).isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history WHERE first_attempt_outcome IS NOT NULL"))
        .isEqualTo(1);
  }

  @Test
  void aMixedBatchReportsEachChange() throws SQLException {
    NoticeRow updated = claimOne(insert(row()));
    NoticeRow staleUpdate = insert(row());
    claimOne(staleUpdate);
    NoticeRow archived = claimOne(insert(row()));
    NoticeRow staleArchive = insert(row());
    claimOne(staleArchive);
    NoticeRow restored = archive(row(), DEAD, T);
    NoticeRow staleRestore = archive(row(), CANCELLED, T);
    NoticeRow staleRestoreOld = new NoticeRow(staleRestore.notice(), null, Instant.EPOCH,
        staleRestore.version() - 1, staleRestore.retryBase());

    List<Change> batch = List.of(
        attempt(updated, DeliveryResult.retry("again"), T),
        Transitions.move(staleUpdate, PENDING, T.plusSeconds(5), T),
        attempt(archived, DeliveryResult.delivered(), T),
        Transitions.move(staleArchive, CANCELLED, null, T),
        Transitions.resend(restored, T),
        Transitions.resend(staleRestoreOld, T));
    NoticeRow staleUpdateBefore = store.find(staleUpdate.id()).orElseThrow();
    NoticeRow staleArchiveBefore = store.find(staleArchive.id()).orElseThrow();

    assertThat(written(store.apply(batch))).containsExactly(true, false, true, false, true, false);

    assertThat(store.find(updated.id())).contains(batch.get(0).next());
    assertThat(store.find(staleUpdate.id())).contains(staleUpdateBefore);
    assertThat(store.find(archived.id())).contains(batch.get(2).next());
    assertThat(store.find(staleArchive.id())).contains(staleArchiveBefore);
    assertThat(store.find(restored.id())).contains(batch.get(4).next());
    assertThat(store.find(staleRestore.id())).contains(staleRestore);
    assertThat(store.attempts(updated.id())).containsExactly(batch.get(0).attempt());
    assertThat(store.attempts(archived.id())).containsExactly(batch.get(2).attempt());
    assertThat(count("SELECT COUNT(*) FROM herald_notice")).isEqualTo(4);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history")).isEqualTo(2);
    assertThat(store.apply(List.of())).isEmpty();
  }

  // ================================================================ leases

  @Test
  void adoptMovesOnlyTheProvisionalOwnersRowsToTheNextVersion() {
    NoticeRow a = claimOne(insert(row()), "n1*");
    NoticeRow others = claimOne(insert(row()), "n2*");
    NoticeRow free = insert(row().due(T.plusSeconds(600)));

    assertThat(store.adopt("n1*", "n1", List.of(a.id(), others.id(), free.id(), UUID.randomUUID())))
        .containsExactly(a.id());
    NoticeRow adopted = store.find(a.id()).orElseThrow();
    assertThat(adopted.owner()).isEqualTo("n1");
    assertThat(adopted.version()).isEqualTo(a.version() + 1);
    assertThat(store.find(others.id())).contains(others);
    assertThat(store.adopt("n1*", "n1", List.of(a.id()))).as("adopted once").isEmpty();
    assertThat(store.adopt("n1*", "n1", List.of())).isEmpty();
  }

  @Test
  void aLiveNodeKeepsItsNoticesPastTheirLeaseAndADeadOneLosesThem() {
    store.registerNode("n1#a", "n1", T);
    NoticeRow held = claimOne(insert(row()), "n1#a");
    Instant later = T.plusSeconds(60); // the claim's lease is long over; the node's heartbeat decides

    assertThat(store.claim(new Claim("n2#b", later, T, later, later.plusSeconds(5), 10, Set.of(), Set.of())))
        .as("held by a node that beat at or after aliveSince").isEmpty();
    assertThat(store.isAlive("n1#a", T)).isTrue();
    assertThat(store.isAlive("n1#a", T.plusMillis(1))).isFalse();
    assertThat(store.heartbeat("n1#a", later, later.minusSeconds(120))).isTrue();
    assertThat(store.isAlive("n1#a", later)).isTrue();

    Instant much = later.plusSeconds(60);
    assertThat(store.heartbeat("n1#a", much, much.minusSeconds(5))).as("a lapsed incarnation is not revived").isFalse();
    assertThat(ids(store.claim(new Claim("n2#b", much, much.minusSeconds(5), much, much.plusSeconds(5), 10, Set.of(),
        Set.of())))).as("taken over from the dead node").containsExactly(held.id());
    assertThat(store.incarnations("n1")).containsExactly("n1#a");
    store.forgetNode("n1#a");
    assertThat(store.incarnations("n1")).isEmpty();
  }

  @Test
  void heldByReadsTheOwnersInFlightRowsDueByItsBoundOldestFirst() {
    Instant lease = T.plusSeconds(30);
    NoticeRow second = insert(row().leasedBy("n1#a", lease).due(T.minusSeconds(1)));
    NoticeRow first = insert(row().leasedBy("n1#b", lease).due(T.minusSeconds(5)));
    insert(row().leasedBy("n1#a", lease).due(T.plusSeconds(120))); // beyond the bound
    insert(row().leasedBy("n2#c", lease).due(T.minusSeconds(3))); // another owner
    insert(row().leasedBy("n1#a*", lease).due(T.minusSeconds(3))); // provisional: not named
    insert(row().due(T.minusSeconds(9))); // unowned

    assertThat(ids(store.heldBy(List.of("n1#a", "n1#b"), T.plusSeconds(60), 10)))
        .containsExactly(first.id(), second.id());
    assertThat(store.heldBy(List.of("n1#a", "n1#b"), T.plusSeconds(60), 10).getFirst()).isEqualTo(first);
    assertThat(ids(store.heldBy(List.of("n1#a", "n1#b"), T.plusSeconds(60), 1))).containsExactly(first.id());
    assertThat(store.heldBy(List.of(), T.plusSeconds(60), 10)).isEmpty();
  }

  // Issue 20: the engine needs to tell "nothing was written" from "it may have committed".
  @Test
  void aFailureSaysWhetherTheWorkMayHaveBeenWritten() {
    FaultyDataSource faults = new FaultyDataSource(dataSource());
    JdbcNoticeStore faulty = new JdbcNoticeStore(faults.dataSource(),
        ((JdbcNoticeStore) store).dialect(), clock);
    String me = Thread.currentThread().getName();

    faults.poolTimeout(me, 1);
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(StoreException.class,
        () -> faulty.registerNode("n1#a", "n1", T)).outcomeUnknown()).as("no connection: nothing written").isFalse();
    faults.add(FaultyDataSource.Step.STATEMENT, FaultyDataSource.Fault.BREAK, t -> t.equals(me),
        sql -> sql.contains("herald_node"), 1, 0);
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(StoreException.class,
        () -> faulty.registerNode("n1#a", "n1", T)).outcomeUnknown()).as("a statement failed: rolled back").isFalse();
    assertThat(store.incarnations("n1")).isEmpty();

    faults.loseCommitAnswer(me, 1);
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(StoreException.class,
        () -> faulty.registerNode("n1#a", "n1", T)).outcomeUnknown()).as("the commit's answer was lost").isTrue();
    assertThat(store.incarnations("n1")).as("and it had landed").containsExactly("n1#a");
  }

  @Test
  void registeringAnIncarnationAgainIsHarmless() {
    store.registerNode("n1#a", "n1", T);
    store.registerNode("n1#a", "n1", T.plusSeconds(1)); // its first answer was lost
    assertThat(store.incarnations("n1")).containsExactly("n1#a");
    assertThat(store.isAlive("n1#a", T.plusSeconds(1))).isTrue();
  }

  // Issue 20, finding 5: a confirmation accepted during an attempt must count, whatever the outcome
  // that attempt then records.
  @Test
  void anEarlyConfirmationIsConsumedByTheNextOutcomeThatCanBeConfirmed() {
    NoticeRow delivering = claimOne(insert(row()));
    assertThat(store.recordEarlyConfirmation(delivering.id(), T)).isTrue();
    assertThat(store.recordEarlyConfirmation(delivering.id(), T)).as("twice is one").isTrue();

    Change failed = attempt(delivering, DeliveryResult.retry("read timed out"), T); // Herald's side lost the answer
    assertThat(failed.ifConfirmed()).isNotNull();
    assertThat(store.apply(List.of(failed))).containsExactly(Applied.CONFIRMED);
    NoticeRow now = stored(delivering);
    assertThat(now.status()).isEqualTo(SUCCEEDED);
    assertThat(now).isEqualTo(failed.ifConfirmed());
    assertThat(store.attempts(delivering.id())).singleElement()
        .satisfies(a -> assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.RETRY));

    NoticeRow other = claimOne(insert(row()));
    Change plain = attempt(other, DeliveryResult.retry("down"), T);
    assertThat(store.apply(List.of(plain))).as("nothing waiting: as given").containsExactly(Applied.APPLIED);
    assertThat(stored(other).status()).isEqualTo(FAILED);
  }

  @Test
  void anEarlyConfirmationIsRecordedOnlyWhileTheNoticeIsInFlight() {
    NoticeRow waiting = insert(row().due(T.plusSeconds(60)));
    assertThat(store.recordEarlyConfirmation(waiting.id(), T)).isFalse();
    assertThat(store.recordEarlyConfirmation(UUID.randomUUID(), T)).isFalse();
    NoticeRow held = claimOne(insert(row()));
    assertThat(store.recordEarlyConfirmation(held.id(), T)).isTrue();
    assertThat(store.purgeRequests(T.plusMillis(1))).isEqualTo(1);
    Change after = attempt(held, DeliveryResult.retry("again"), T);
    assertThat(store.apply(List.of(after))).as("purged: not consumed").containsExactly(Applied.APPLIED);
  }

  @Test
  void aStaleChangeConsumesNoConfirmation() {
    NoticeRow held = claimOne(insert(row()));
    assertThat(store.recordEarlyConfirmation(held.id(), T)).isTrue();
    NoticeRow older = new NoticeRow(held.notice(), held.owner(), held.leaseUntil(), held.version() - 1,
        held.retryBase(), held.shard());
    assertThat(store.apply(List.of(attempt(older, DeliveryResult.retry("late"), T)))).containsExactly(Applied.STALE);
    assertThat(store.apply(List.of(attempt(held, DeliveryResult.retry("now"), T)))).containsExactly(Applied.CONFIRMED);
  }

  // Two operators asking a node to let go of one notice at once: one of them failed with a duplicate
  // key (found by the guarantees test's fault schedule on PostgreSQL).
  @Test
  void operatorsAskingForOneNoticeAtOnceBothSucceed() throws Exception {
    try (ExecutorService pair = Executors.newFixedThreadPool(2)) {
      for (int i = 0; i < 30; i++) {
        UUID id = UUID.randomUUID();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> asks = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
          asks.add(pair.submit(() -> {
            go.await();
            store.requestRevocation(id, "n1#a", T);
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : asks) {
          f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(store.revocationsFor("n1#a")).contains(id);
      }
    }
  }

  @Test
  void revocationsAreKeptUntilCleared() {
    UUID a = UUID.randomUUID();
    UUID b = UUID.randomUUID();
    store.requestRevocation(a, "n1#a", T);
    store.requestRevocation(a, "n1#a", T); // asking twice is one request
    store.requestRevocation(b, "n2#b", T);
    assertThat(store.revocationsFor("n1#a")).containsExactly(a);
    store.clearRevocations(List.of(a));
    assertThat(store.revocationsFor("n1#a")).isEmpty();
    assertThat(store.purgeRequests(T.plusMillis(1))).isEqualTo(1); // b's revocation
    assertThat(store.revocationsFor("n2#b")).isEmpty();
  }

  /** A data source that runs {@code hook} once, just before the first statement prepared whose SQL matches. */
  protected static DataSource beforeFirst(DataSource real, java.util.function.Predicate<String> matches, Runnable hook) {
    AtomicBoolean fired = new AtomicBoolean();
    return proxy(DataSource.class, real, (method, args) -> {
      if (method.getName().equals("getConnection")) {
        Connection c = (Connection) method.invoke(real, args);
        return proxy(Connection.class, c, (m, a) -> {
          if (m.getName().startsWith("prepare") && a != null && a[0] instanceof String sql && matches.test(sql)
              && fired.compareAndSet(false, true)) {
            hook.run();
          }
          return m.invoke(c, a);
        });
      }
      return method.invoke(real, args);
    });
  }

  private interface Call {
    Object invoke(java.lang.reflect.Method method, Object[] args) throws Exception;
  }

  private static <T> T proxy(Class<T> type, T target, Call call) {
    return type.cast(Proxy.newProxyInstance(NoticeStoreContract.class.getClassLoader(), new Class<?>[] {type},
        (self, method, args) -> {
          try {
            return call.invoke(method, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        }));
  }

  // ================================================================ apply

  @Test
  void releaseAllFreesOnlyTheOwnersInFlightRows() {
    Instant lease = T.plusSeconds(30);
    NoticeRow neverTried = insert(row().leasedBy("n1", lease).due(T.minusSeconds(4)));
    NoticeRow resentUntried = insert(row().leasedBy("n1", lease).attempts(2, 2).due(T.minusSeconds(3)));
    NoticeRow tried = insert(row().leasedBy("n1", lease).attempts(3, 1).lastAttempt(T.minusSeconds(9), "boom")
        .due(T.minusSeconds(2)));
    NoticeRow others = insert(row().leasedBy("n2", lease).due(T.minusSeconds(1)));
    NoticeRow ownedButWaiting = insert(row().status(AWAITING_CONFIRM).attempts(1, 0).owner("n1", lease)
        .due(T.plusSeconds(600)));
    Instant now = T.plusSeconds(1);

    assertThat(store.releaseAll("n1", now)).isEqualTo(3);

    assertThat(store.find(neverTried.id())).contains(released(neverTried, PENDING, now));
    assertThat(store.find(resentUntried.id())).contains(released(resentUntried, PENDING, now));
    assertThat(store.find(tried.id())).contains(released(tried, FAILED, now));
    assertThat(store.find(others.id())).contains(others);
    assertThat(store.find(ownedButWaiting.id())).contains(ownedButWaiting);
    assertThat(store.releaseAll("n1", now)).isZero();
    assertThat(ids(store.claim(new Claim("n3", now, now, now.plusSeconds(30), 10))))
        .containsExactly(neverTried.id(), resentUntried.id(), tried.id());
  }

  @Test
  void releaseHeldFreesTheOwnersInFlightRowsDueByItsBound() {
    Instant lease = T.plusSeconds(30);
    NoticeRow due = insert(row().leasedBy("n1", lease).due(T.minusSeconds(4)));
    NoticeRow atBound = insert(row().leasedBy("n1", lease).attempts(3, 1).lastAttempt(T.minusSeconds(9), "boom")
        .due(T.plusSeconds(5)));
    NoticeRow beyond = insert(row().leasedBy("n1", lease).due(T.plusSeconds(5).plusMillis(1)));
    NoticeRow others = insert(row().leasedBy("n2", lease).due(T.minusSeconds(1)));
    Instant now = T.plusSeconds(1);

    assertThat(store.releaseHeld("n1", now, T.plusSeconds(5))).isEqualTo(2);

    assertThat(store.find(due.id())).contains(released(due, PENDING, now));
    assertThat(store.find(atBound.id())).contains(released(atBound, FAILED, now));
    assertThat(store.find(beyond.id())).as("beyond the bound: left to the claim when due").contains(beyond);
    assertThat(store.find(others.id())).contains(others);
    assertThat(store.releaseHeld("n1", now, T.plusSeconds(5))).isZero();
  }

  // ================================================================ attempts

  @Test
  void attemptsAreLoggedInOrderWithEveryFieldAndBoundedDetail() {
    String huge = "x".repeat(Attempt.MAX_DETAIL + 1_000);
    NoticeRow first = claimOne(insert(row()));
    Change a1 = attempt(first, DeliveryResult.retry("connection refused"), T);
    assertThat(apply(a1)).containsExactly(true);

    NoticeRow second = claimOne(stored(first), T.plusSeconds(10));
    Change a2 = attempt(second, DeliveryResult.retry(huge), T.plusSeconds(10));
    assertThat(apply(a2)).containsExactly(true);

    NoticeRow third = claimOne(stored(first), T.plusSeconds(20));
    Change a3 = new Change(third, Transitions.move(third, SUCCEEDED, null, T.plusSeconds(21)).next(),
        new Attempt(third.id(), 3, T.plusSeconds(20), Duration.ofMillis(987), DeliveryResult.Outcome.DELIVERED,
            null, null));
    assertThat(apply(a3)).containsExactly(true);

    Attempt bounded = new Attempt(second.id(), 2, T.plusSeconds(10), Duration.ofMillis(150),
        DeliveryResult.Outcome.RETRY, Attempt.bound(huge), "n1");
    List<Attempt> log = store.attempts(first.id());
    assertThat(log).containsExactly(
        new Attempt(first.id(), 1, T, Duration.ofMillis(150), DeliveryResult.Outcome.RETRY, "connection refused", "n1"),
        bounded,
        a3.attempt());
    assertThat(log.get(1).detail()).hasSize(Attempt.MAX_DETAIL).endsWith("…[1000 more chars]");
    assertThat(stored(first).notice().lastError()).as("kept from the failed attempt, bounded").isEqualTo(Attempt.bound(huge));
    assertThat(stored(first).status()).isEqualTo(SUCCEEDED);
    assertThat(store.attempts(UUID.randomUUID())).isEmpty();
  }

  @Test
  void aLongLastErrorIsBoundedLikeTheDetail() {
    String huge = "y".repeat(Attempt.MAX_DETAIL * 2);
    NoticeRow claimed = claimOne(insert(row()));
    assertThat(apply(attempt(claimed, DeliveryResult.retry(huge), T))).containsExactly(true);

    assertThat(store.find(claimed.id()).orElseThrow().notice().lastError()).isEqualTo(Attempt.bound(huge));
  }

  // ================================================================ query

  @Test
  void queryFiltersLiveAndArchivedNoticesNewestFirst() {
    Notice p1 = insert(row().created(T.minusSeconds(300))).notice();
    Notice f1 = insert(row().created(T.minusSeconds(240)).status(FAILED).attempts(1, 0)).notice();
    Notice s1 = archive(row().created(T.minusSeconds(180)), SUCCEEDED, T).notice();
    Notice d1 = archive(row().created(T.minusSeconds(120)), DEAD, T).notice();
    Notice p2 = insert(row().definition("other").created(T.minusSeconds(60))).notice();
    Notice x2 = archive(row().definition("other").created(T.minusSeconds(360)), CANCELLED, T).notice();
    NoticeQuery all = NoticeQuery.all();

    assertThat(store.query(all)).isEqualTo(new Page<>(List.of(p2, d1, s1, f1, p1, x2), 0, 50, false));
    assertThat(store.query(all.statuses(PENDING, IN_FLIGHT, FAILED, AWAITING_CONFIRM, SUCCEEDED, DEAD, CANCELLED)))
        .isEqualTo(store.query(all));
    assertThat(store.query(all.definition(DEF)).items()).containsExactly(d1, s1, f1, p1);
    assertThat(store.query(all.definition("nothing")).items()).isEmpty();

    assertThat(store.query(all.statuses(PENDING)).items()).as("live only").containsExactly(p2, p1);
    assertThat(store.query(all.definition(DEF).statuses(PENDING, FAILED)).items()).containsExactly(f1, p1);
    assertThat(store.query(all.statuses(PENDING, IN_FLIGHT, FAILED, AWAITING_CONFIRM)).items())
        .containsExactly(p2, f1, p1);
    assertThat(store.query(all.statuses(DEAD)).items()).as("history only").containsExactly(d1);
    assertThat(store.query(all.statuses(SUCCEEDED, DEAD, CANCELLED)).items()).containsExactly(d1, s1, x2);
    assertThat(store.query(all.statuses(PENDING, DEAD)).items()).as("mixed").containsExactly(p2, d1, p1);
    assertThat(store.query(all.definition("other").statuses(CANCELLED, FAILED)).items()).containsExactly(x2);

    assertThat(store.query(all.createdBetween(T.minusSeconds(240), T.minusSeconds(120))).items())
        .as("[from, to)").containsExactly(s1, f1);
    assertThat(store.query(all.createdBetween(T.minusSeconds(400), T).statuses(SUCCEEDED, PENDING).definition(DEF))
        .items()).containsExactly(s1, p1);
    assertThat(store.query(all.createdBetween(null, T.minusSeconds(300))).items()).containsExactly(x2);
    assertThat(store.query(all.createdBetween(T.minusSeconds(60), null)).items()).containsExactly(p2);

    assertThat(store.query(all.page(0, 2))).isEqualTo(new Page<>(List.of(p2, d1), 0, 2, true));
    assertThat(store.query(all.page(2, 2))).isEqualTo(new Page<>(List.of(s1, f1), 2, 2, true));
    assertThat(store.query(all.page(4, 2))).isEqualTo(new Page<>(List.of(p1, x2), 4, 2, false));
    assertThat(store.query(all.page(5, 2))).isEqualTo(new Page<>(List.of(x2), 5, 2, false));
    assertThat(store.query(all.page(6, 2))).isEqualTo(new Page<>(List.of(), 6, 2, false));
    assertThat(store.query(all.statuses(PENDING, DEAD).page(1, 1)))
        .isEqualTo(new Page<>(List.of(d1), 1, 1, true));
    List<Notice> newestFirst = List.of(p2, d1, s1, f1, p1, x2);
    for (int round = 0; round < 2; round++) { // the same statement again and again, as a pool reuses it
      for (int offset = 0; offset < newestFirst.size(); offset++) {
        assertThat(store.query(all.page(offset, 1)).items()).as("page at offset %d", offset)
            .containsExactly(newestFirst.get(offset));
      }
    }

    assertThat(d1.finishedAt()).isEqualTo(T);
    assertThat(d1.nextAttemptAt()).isNull();
    assertThat(p1.finishedAt()).isNull();
    assertThat(p1.nextAttemptAt()).isEqualTo(T);
  }

  // ================================================================ history

  @Test
  void findFinishedReturnsArchivedNoticesOfOneStatusInAWindow() {
    NoticeRow d3h = archive(row(), DEAD, T.minusSeconds(3 * 3600));
    NoticeRow d2h = archive(row(), DEAD, T.minusSeconds(2 * 3600));
    NoticeRow d1h = archive(row(), DEAD, T.minusSeconds(3600));
    archive(row(), SUCCEEDED, T.minusSeconds(2 * 3600));
    archive(row().definition("other"), DEAD, T.minusSeconds(2 * 3600));
    insert(row().status(FAILED).attempts(1, 0));

    assertThat(store.findFinished(DEF, DEAD, T.minusSeconds(3 * 3600), T.minusSeconds(3600), 10))
        .as("[from, to), oldest first").containsExactly(d3h, d2h);
    assertThat(store.findFinished(DEF, DEAD, T.minusSeconds(3 * 3600), T, 10)).containsExactly(d3h, d2h, d1h);
    assertThat(store.findFinished(DEF, DEAD, T.minusSeconds(3 * 3600), T, 2)).containsExactly(d3h, d2h);
    assertThat(store.findFinished(DEF, DEAD, T.minusSeconds(3 * 3600 - 1), T, 10)).containsExactly(d2h, d1h);
    assertThat(store.findFinished(DEF, CANCELLED, Instant.EPOCH, T, 10)).isEmpty();
    assertThat(store.findFinished("nothing", DEAD, Instant.EPOCH, T, 10)).isEmpty();
    assertThat(d1h.notice().finishedAt()).isEqualTo(T.minusSeconds(3600));
  }

  @Test
  void purgeHistoryDeletesOldArchivedNoticesWithTheirAttemptsAndKeys() throws SQLException {
    List<NoticeRow> old = List.of(
        archive(row().key("old-1"), DEAD, T.minusSeconds(3 * 3600)),
        archive(row().key("old-2"), SUCCEEDED, T.minusSeconds(2 * 3600)),
        archive(row().definition("other").key("old-3"), CANCELLED, T.minusSeconds(2 * 3600)),
        archive(row(), DEAD, T.minusSeconds(2 * 3600)));
    NoticeRow recent = archive(row().key("recent"), DEAD, T.minusSeconds(3600));
    NoticeRow live = claimOne(insert(row().key("live")));
    assertThat(apply(attempt(live, DeliveryResult.retry("x"), T))).containsExactly(true);
    // each archived notice finished at its first attempt and keeps it in its history row
    assertThat(count("SELECT COUNT(*) FROM herald_attempt")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history WHERE first_attempt_outcome IS NOT NULL")).isEqualTo(5);
    Instant before = T.minusSeconds(90 * 60);

    assertThat(store.purgeHistory(before, 3)).isEqualTo(3);
    assertThat(store.purgeHistory(before, 10)).isEqualTo(1);
    assertThat(store.purgeHistory(before, 10)).isZero();

    for (NoticeRow r : old) {
      assertThat(store.find(r.id())).isEmpty();
      assertThat(store.attempts(r.id())).isEmpty();
      assertThat(count("SELECT COUNT(*) FROM herald_idempotency WHERE notice_id = ?", r.id())).isZero();
    }
    assertThat(store.find(recent.id())).contains(recent);
    assertThat(store.attempts(recent.id())).hasSize(1);
    assertThat(store.find(live.id()).orElseThrow().status()).isEqualTo(FAILED);
    assertThat(store.attempts(live.id())).hasSize(1);
    assertThat(count("SELECT COUNT(*) FROM herald_notice_history")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM herald_idempotency")).isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM herald_attempt")).isEqualTo(1);

    NoticeRow reused = row().key("old-1").build();
    assertThat(insertResult(reused)).as("a purged key is free again").isEqualTo(new InsertResult(reused, true));
    assertThat(insertResult(row().key("recent").build()).created()).isFalse();
  }

  /**
   * A resend that restores a notice after the purge chose it but before the purge deletes anything:
   * the restored notice keeps its attempts and idempotency key, and the purge does not count it.
   * (Before the fix the purge deleted attempts and keys by the ids it had chosen, restored or not.)
   */
  @Test
  void aNoticeResentWhileThePurgeRunsKeepsItsAttemptsAndKey() throws Exception {
    NoticeRow resent = archive(row().key("resent"), DEAD, T.minusSeconds(3 * 3600));
    NoticeRow purged = archive(row().key("purged"), DEAD, T.minusSeconds(2 * 3600));
    CompletableFuture<Boolean> resend = new CompletableFuture<>();
    DataSource hooked = beforeFirst(dataSource(), sql -> sql.strip().toUpperCase(Locale.ROOT).startsWith("DELETE"), () -> {
      CompletableFuture.runAsync(() -> resend.complete(apply(Transitions.resend(resent, T)).getFirst()));
      try {
        resend.get(2, TimeUnit.SECONDS);
      } catch (Exception waitingForThePurge) {
        // a purge that locks the row first makes the resend wait for it, then find it gone
      }
    });

    int count = new JdbcNoticeStore(hooked, ((JdbcNoticeStore) store).dialect(), clock)
        .purgeHistory(T.minusSeconds(3600), 10);

    if (resend.get(30, TimeUnit.SECONDS)) {
      assertThat(count).as("the restored notice is not purged").isEqualTo(1);
      NoticeRow live = stored(resent);
      assertThat(live.status()).isEqualTo(PENDING);
      assertThat(store.attempts(resent.id())).as("attempts kept").hasSize(1);
      assertThat(insertResult(row().key("resent").build())).as("key kept").isEqualTo(new InsertResult(live, false));
    } else {
      assertThat(count).isEqualTo(2);
      assertThat(store.find(resent.id())).isEmpty();
      assertThat(store.attempts(resent.id())).isEmpty();
      assertThat(count("SELECT COUNT(*) FROM herald_idempotency WHERE notice_id = ?", resent.id())).isZero();
    }
    assertThat(store.find(purged.id())).isEmpty();
    assertThat(store.attempts(purged.id())).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM herald_idempotency WHERE notice_id = ?", purged.id())).isZero();
  }

  // ================================================================ time zones

  @Test
  void timesRoundTripInEpochMillisWhateverTheDefaultTimeZone() throws SQLException {
    TimeZone saved = TimeZone.getDefault();
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
      Instant horizon = Instant.parse("2025-03-30T01:30:00.001Z");
      NoticeRow r = insert(row()
          .fireAt(Instant.parse("2025-03-30T00:59:59.999Z"))
          .due(horizon)
          .created(Instant.parse("2024-12-31T18:30:00.000Z"))
          .updated(Instant.parse("2025-01-01T00:00:00.123Z"))
          .lastAttempt(Instant.parse("1999-12-31T23:59:59.999Z"), "y2k")
          .status(FAILED)
          .attempts(1, 0));
      NoticeRow later = insert(row().due(horizon.plusMillis(1)));

      assertThat(store.find(r.id())).contains(r);
      assertThat(count("SELECT COUNT(*) FROM herald_notice WHERE id = ? AND due_at = ? AND created_at = ?",
          r.id(), horizon.toEpochMilli(), Instant.parse("2024-12-31T18:30:00Z").toEpochMilli())).isEqualTo(1);
      Instant now = horizon.minusSeconds(5);
      List<NoticeRow> got = store.claim(new Claim("n1", now, horizon, horizon.plusSeconds(30), 10));
      assertThat(got).containsExactly(leased(r, "n1", horizon.plusSeconds(30), now));
      assertThat(store.find(later.id())).contains(later);
      assertThat(store.find(r.id())).contains(got.getFirst());
    } finally {
      TimeZone.setDefault(saved);
    }
  }

  // ================================================================ helpers

  /** A new PENDING notice of {@link #DEF}, due at {@link #T}; change what a test needs. */
  protected static RowSpec row() {
    return new RowSpec();
  }

  /** A notice under construction, with defaults for every field. */
  protected static final class RowSpec {
    private UUID id = UUID.randomUUID();
    private String definition = DEF;
    private String payload = "{\"order\":1}";
    private String description = "order 1";
    private String key;
    private NoticeStatus status = PENDING;
    private int attempts;
    private int retryBase;
    private Instant fireAt = T;
    private Instant due = T;
    private Instant lastAttemptAt;
    private String lastError;
    private Instant created = T;
    private Instant updated = T;
    private String owner;
    private Instant leaseUntil = Instant.EPOCH;
    private long version = 1;
    private String traceparent;

    public RowSpec traceparent(String value) {
      this.traceparent = value;
      return this;
    }

    /** Herald's ids are UUIDv7s, whose order in Java matches the database's (random UUIDs' need not). */
    public RowSpec id(UUID value) {
      this.id = value;
      return this;
    }

    public RowSpec definition(String name) {
      this.definition = name;
      return this;
    }

    public RowSpec payload(String json) {
      this.payload = json;
      return this;
    }

    public RowSpec description(String text) {
      this.description = text;
      return this;
    }

    public RowSpec key(String idempotencyKey) {
      this.key = idempotencyKey;
      return this;
    }

    public RowSpec status(NoticeStatus s) {
      this.status = s;
      return this;
    }

    public RowSpec attempts(int made, int base) {
      this.attempts = made;
      this.retryBase = base;
      return this;
    }

    public RowSpec fireAt(Instant t) {
      this.fireAt = t;
      return this;
    }

    public RowSpec due(Instant t) {
      this.due = t;
      return this;
    }

    public RowSpec lastAttempt(Instant at, String error) {
      this.lastAttemptAt = at;
      this.lastError = error;
      return this;
    }

    /** Created (and last updated) at {@code t}. */
    public RowSpec created(Instant t) {
      this.created = t;
      this.updated = t;
      return this;
    }

    public RowSpec updated(Instant t) {
      this.updated = t;
      return this;
    }

    public RowSpec owner(String node, Instant until) {
      this.owner = node;
      this.leaseUntil = until;
      return this;
    }

    /** IN_FLIGHT, held by {@code node} until {@code until}. */
    public RowSpec leasedBy(String node, Instant until) {
      return status(IN_FLIGHT).owner(node, until);
    }

    public RowSpec version(long v) {
      this.version = v;
      return this;
    }

    public NoticeRow build() {
      Notice n = new Notice(id, definition, payload, description, key, status, attempts, fireAt, due, lastAttemptAt,
          lastError, created, updated, null, null, traceparent);
      return new NoticeRow(n, owner, leaseUntil, version, retryBase);
    }
  }

  /** Inserts and commits; returns the row, which must be new. */
  protected NoticeRow insert(RowSpec spec) {
    return insert(spec.build());
  }

  protected NoticeRow insert(NoticeRow r) {
    InsertResult result = insertResult(r);
    assertThat(result.created()).as("inserted %s", r.id()).isTrue();
    return result.row();
  }

  protected InsertResult insertResult(NoticeRow r) {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      InsertResult result = store.insert(c, r);
      c.commit();
      return result;
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  /** Claims exactly this row (due at or before {@link #T}) for n1. */
  protected NoticeRow claimOne(NoticeRow r) {
    return claimOne(r, "n1");
  }

  protected NoticeRow claimOne(NoticeRow r, String owner) {
    return claimOne(r, owner, T);
  }

  /** Claims exactly this row at {@code now}; it must be the only due one. */
  protected NoticeRow claimOne(NoticeRow r, Instant now) {
    return claimOne(r, "n1", now);
  }

  private NoticeRow claimOne(NoticeRow r, String owner, Instant now) {
    List<NoticeRow> got = store.claim(new Claim(owner, now, now, now.plusSeconds(30), 1_000));
    assertThat(ids(got)).as("claimed").containsExactly(r.id());
    assertThat(got.getFirst()).isEqualTo(leased(r, owner, now.plusSeconds(30), now));
    return got.getFirst();
  }

  /**
   * Inserts the row leased by n0, then finishes it with {@code status} at {@code at}, logging one
   * attempt; returns it as stored.
   */
  protected NoticeRow archive(RowSpec spec, NoticeStatus status, Instant at) {
    NoticeRow r = insert(spec.leasedBy("n0", T.plusSeconds(30)));
    Attempt logged = new Attempt(r.id(), r.notice().attempts() + 1, at.minusMillis(5), Duration.ofMillis(5),
        status == SUCCEEDED ? DeliveryResult.Outcome.DELIVERED : DeliveryResult.Outcome.FAIL, status.name(), "n0");
    assertThat(apply(new Change(r, Transitions.move(r, status, null, at).next(), logged))).containsExactly(true);
    NoticeRow stored = store.find(r.id()).orElseThrow();
    assertThat(stored.status()).isEqualTo(status);
    assertThat(stored.notice().finishedAt()).isEqualTo(at);
    return stored;
  }

  /** What a claim at {@code now} makes of {@code r}. */
  protected static NoticeRow leased(NoticeRow r, String owner, Instant until, Instant now) {
    Notice n = r.notice();
    return r.next(new Notice(n.id(), n.definition(), n.payload(), n.description(), n.idempotencyKey(), IN_FLIGHT,
        n.attempts(), n.fireAt(), n.nextAttemptAt(), n.lastAttemptAt(), n.lastError(), n.createdAt(), now, null,
        n.target(), n.traceparent()),
        owner, until);
  }

  /** What releaseAll at {@code now} makes of {@code r}. */
  private static NoticeRow released(NoticeRow r, NoticeStatus status, Instant now) {
    Notice n = r.notice();
    return r.next(new Notice(n.id(), n.definition(), n.payload(), n.description(), n.idempotencyKey(), status,
        n.attempts(), n.fireAt(), n.nextAttemptAt(), n.lastAttemptAt(), n.lastError(), n.createdAt(), now, null,
        n.target(), n.traceparent()),
        null, Instant.EPOCH);
  }

  private static NoticeRow withLease(NoticeRow r, Instant until) {
    return new NoticeRow(r.notice(), r.owner(), until, r.version(), r.retryBase());
  }

  /** The change the engine records for an attempt of {@code claimed} that started at {@code at} and took 150 ms. */
  protected static Change attempt(NoticeRow claimed, DeliveryResult result, Instant at) {
    return Transitions.afterAttempt(
            new Transitions.AttemptFacts(claimed, DEFINITION, result, at, Duration.ofMillis(150), "n1"),
            at, null, at.plusSeconds(30), new Random(7))
        .change();
  }

  /** The row as stored now. */
  protected NoticeRow stored(NoticeRow r) {
    return store.find(r.id()).orElseThrow();
  }

  protected List<Boolean> apply(Change... changes) {
    return written(store.apply(List.of(changes)));
  }

  /** Whether each change was written (as given or confirmed). */
  protected static List<Boolean> written(List<dev.herald.spi.Applied> applied) {
    return applied.stream().map(dev.herald.spi.Applied::written).toList();
  }

  protected static List<UUID> ids(Collection<NoticeRow> rows) {
    return rows.stream().map(NoticeRow::id).toList();
  }

  /** Runs a {@code SELECT COUNT(*)} with the given arguments. */
  protected long count(String sql, Object... args) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] instanceof UUID id) {
          ((JdbcNoticeStore) store).dialect().setId(ps, i + 1, id);
        } else {
          ps.setObject(i + 1, args[i]);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
