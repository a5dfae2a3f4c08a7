package dev.herald.store;

import static dev.herald.NoticeStatus.IN_FLIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.DeliveryResult;
import dev.herald.engine.Ids;
import dev.herald.spi.Change;
import dev.herald.spi.Claim;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.store.jdbc.Dialect;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a store must also do when several nodes share a server database, on top of {@link
 * NoticeStoreContract}: node affinity in the claim, skipping rows other claimers hold, migrations
 * started by several nodes at once, idempotency keys that leave the caller's transaction usable and
 * match only identical keys, exact optimistic checks whatever the driver's batch mode, and text the
 * database would refuse. Run per database by a subclass.
 */
public abstract class ClusterStoreContract extends NoticeReportsContract {

  protected Dialect dialect() {
    return ((JdbcNoticeStore) store).dialect();
  }

  // ================================================================ affinity

  @Test
  void claimHonoursDefinitionAndShardAffinity() {
    NoticeRow a = insert(inShard(row().due(T.minusSeconds(4)).build(), 3));
    NoticeRow b = insert(inShard(row().due(T.minusSeconds(3)).build(), 7));
    NoticeRow c = insert(inShard(row().definition("other").due(T.minusSeconds(2)).build(), 3));
    NoticeRow d = insert(inShard(row().definition("other").due(T.minusSeconds(1)).build(), 255));
    Instant lease = T.plusSeconds(30);

    assertThat(store.claim(new Claim("n1", T, T, lease, 10, Set.of("other"), Set.of(3))))
        .containsExactly(leased(c, "n1", lease, T));
    assertThat(store.claim(new Claim("n2", T, T, lease, 10, Set.of(), Set.of(3, 7))))
        .containsExactly(leased(a, "n2", lease, T), leased(b, "n2", lease, T));
    assertThat(store.claim(new Claim("n3", T, T, lease, 10, Set.of(DEF, "nothing"), Set.of()))).isEmpty();
    assertThat(store.claim(new Claim("n3", T, T, lease, 10, Set.of(DEF, "other"), Set.of(255))))
        .containsExactly(leased(d, "n3", lease, T));
    assertThat(store.find(d.id()).orElseThrow().shard()).isEqualTo(255);
    assertThat(store.claim(new Claim("n4", T, T, lease, 10))).isEmpty();
  }

  private static NoticeRow inShard(NoticeRow r, int shard) {
    return new NoticeRow(r.notice(), r.owner(), r.leaseUntil(), r.version(), r.retryBase(), shard);
  }

  // ================================================================ migrations

  @Test
  void nodesMigratingAtOnceApplyEachScriptOnce() throws Exception {
    dropHeraldTables();
    int nodes = 4;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(nodes);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        done.add(pool.submit(() -> {
          start.await();
          new JdbcNoticeStore(dataSource(), dialect(), clock).migrate();
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    int scripts = scripts().size();
    assertThat(count("SELECT COUNT(*) FROM herald_schema_version")).isEqualTo(scripts);
    assertThat(count("SELECT COUNT(DISTINCT version) FROM herald_schema_version")).isEqualTo(scripts);
    NoticeRow r = insert(row());
    assertThat(store.find(r.id())).contains(r);
  }

  private List<String> scripts() throws IOException {
    try (InputStream in = getClass().getClassLoader()
        .getResourceAsStream("db/herald/" + dialect().name() + "/migrations.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }
  }

  private void dropHeraldTables() throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (java.sql.ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
        while (rs.next()) {
          String name = rs.getString("TABLE_NAME");
          if (name.toLowerCase(java.util.Locale.ROOT).startsWith("herald_")) {
            tables.add(name);
          }
        }
      }
      assertThat(tables).as("tables of the schema under test").isNotEmpty();
      for (String table : tables) {
        st.execute("DROP TABLE " + table);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  // ================================================================ idempotency keys

  @Test
  void idempotencyKeysMatchOnlyWhenIdentical() {
    List<String> keys = List.of("key", "Key", "KEY", "key ", " key", "kéy", "ke\u0301y", "キー", "key\t");
    List<NoticeRow> rows = new ArrayList<>();
    for (String k : keys) {
      NoticeRow r = row().key(k).build();
      assertThat(insertResult(r)).as("key [%s]", k).isEqualTo(new InsertResult(r, true));
      rows.add(r);
    }
    for (int i = 0; i < keys.size(); i++) {
      InsertResult again = insertResult(row().key(keys.get(i)).build());
      assertThat(again.created()).as("key [%s] again", keys.get(i)).isFalse();
      assertThat(again.row().id()).as("key [%s] again", keys.get(i)).isEqualTo(rows.get(i).id());
    }
  }

  @Test
  void aTakenIdempotencyKeyLeavesTheCallersTransactionUsable() throws SQLException {
    NoticeRow first = insert(row().key("taken"));
    NoticeRow before = row().build();
    NoticeRow duplicate = row().key("taken").build();
    NoticeRow after = row().key("fresh").build();
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      assertThat(store.insert(c, before).created()).isTrue();
      InsertResult taken = store.insert(c, duplicate);
      assertThat(taken.created()).isFalse();
      assertThat(taken.row()).isEqualTo(first);
      assertThat(store.insert(c, after).created()).as("the transaction goes on after a taken key").isTrue();
      c.commit();
    }
    assertThat(store.find(before.id())).contains(before);
    assertThat(store.find(after.id())).contains(after);
    assertThat(store.find(duplicate.id())).isEmpty();
  }

  /**
   * Two transactions enqueue one key at once: the second's insert waits for the first's key and,
   * once the first commits, returns the first's notice. Each transaction reads before it enqueues, as
   * an application's does: under REPEATABLE READ (MySQL's and MariaDB's default) its snapshot then
   * predates the other's commit, and a plain read of the key found nothing ("vanished").
   */
  @Test
  void transactionsEnqueueingOneKeyAtOnceGetOneNotice() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 3; round++) {
        String key = "race-" + round;
        CountDownLatch bothRead = new CountDownLatch(2);
        List<Future<InsertResult>> results = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          results.add(pool.submit(() -> {
            try (Connection c = dataSource().getConnection()) {
              c.setAutoCommit(false);
              readSomething(c);
              bothRead.countDown();
              assertThat(bothRead.await(10, TimeUnit.SECONDS)).isTrue();
              InsertResult r = store.insert(c, row().key(key).build());
              if (r.created()) {
                Thread.sleep(300); // hold the key uncommitted: the other insert waits for it
              }
              c.commit();
              return r;
            }
          }));
        }
        InsertResult a = results.get(0).get(30, TimeUnit.SECONDS);
        InsertResult b = results.get(1).get(30, TimeUnit.SECONDS);
        assertThat(a.created() ^ b.created()).as("exactly one created, round %d", round).isTrue();
        assertThat(a.row()).isEqualTo(b.row());
        assertThat(count("SELECT COUNT(*) FROM herald_idempotency WHERE notice_id = ?", a.row().id())).isEqualTo(1);
      }
      assertThat(count("SELECT COUNT(*) FROM herald_notice")).isEqualTo(3);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The key and its notice committed, and the notice archived, after the caller's transaction began. */
  @Test
  void aKeyTakenAfterTheCallersSnapshotFindsItsNoticeEvenArchived() throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      readSomething(c);
      NoticeRow first = insert(row().key("late"));
      assertThat(apply(attempt(claimOne(first), DeliveryResult.delivered(), T))).containsExactly(true);

      InsertResult got = store.insert(c, row().key("late").build());
      c.commit();

      assertThat(got).isEqualTo(new InsertResult(stored(first), false));
      assertThat(got.row().status()).isEqualTo(dev.herald.NoticeStatus.SUCCEEDED);
    }
  }

  /** A read that opens the transaction's snapshot (InnoDB's REPEATABLE READ takes it at the first read). */
  private static void readSomething(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM herald_notice")) {
      rs.next();
    }
  }

  // ================================================================ lock order

  /**
   * Lock order of outcome batches. The engine never has two changes of one notice in flight, and live
   * nodes hold disjoint notices, so the crossing that exists is a paused node's stale batch: n1's
   * heartbeat lapsed, n2 took A and B over, and n1 records its late outcomes (refused by the version
   * check) while n2 records its own. A batch runs its updates, then its archives, each in id order;
   * n2's (update of B, archive of A &lt; B) took B before A. InnoDB at REPEATABLE READ locks the row a
   * version-checked statement reads even when the version does not match, so n1's stale update of A
   * held A while it waited for B: the two deadlocked (then one was rolled back and run again) on
   * MariaDB, every time. PostgreSQL and H2 lock only rows that match, so there a stale batch waits
   * for nothing and this passed before the fix too.
   */
  @Test
  void aStaleBatchOfAnotherNodeCrossingABatchDoesNotDeadlock() throws Exception {
    List<NoticeRow> n1Rows = claimedInIdOrder("n1", T);
    NoticeRow a1 = n1Rows.get(0);
    NoticeRow b1 = n1Rows.get(1);
    Instant later = T.plusSeconds(31); // n1 has no heartbeat and its leases have run out: free to claim
    List<NoticeRow> n2Rows = claimedInIdOrder("n2", later);
    NoticeRow a2 = n2Rows.get(0);
    NoticeRow b2 = n2Rows.get(1);
    List<Change> stale = List.of(attempt(a1, DeliveryResult.retry("n1 late"), T), attempt(b1, DeliveryResult.delivered(), T));
    List<Change> live = List.of(attempt(b2, DeliveryResult.retry("again"), later), attempt(a2, DeliveryResult.delivered(), later));
    AtomicInteger deadlocks = new AtomicInteger();
    DataSource counted = countingDeadlocks(dataSource(), deadlocks);
    JdbcNoticeStore n1 = new JdbcNoticeStore(counted, dialect(), clock);
    CompletableFuture<List<Boolean>> n1Applied = new CompletableFuture<>();
    // n2 pauses between its updates and its archives (deleting live rows) while n1 writes.
    DataSource hooked = beforeFirst(counted, sql -> sql.contains("DELETE FROM herald_notice "), () -> {
      CompletableFuture.runAsync(() -> n1Applied.complete(written(n1.apply(stale))));
      try {
        n1Applied.get(1500, TimeUnit.MILLISECONDS);
      } catch (Exception waiting) {
        // n1 waits for a row n2 holds
      }
    });

    List<Boolean> n2Applied = written(new JdbcNoticeStore(hooked, dialect(), clock).apply(live));

    assertThat(n1Applied.get(30, TimeUnit.SECONDS)).containsExactly(false, false);
    assertThat(deadlocks.get()).as("deadlocks").isZero();
    assertThat(n2Applied).containsExactly(true, true);
    assertThat(stored(a1)).isEqualTo(live.get(1).next());
    assertThat(stored(b1)).isEqualTo(live.get(0).next());
  }

  /**
   * Inserts two notices if there are none, then claims both for {@code owner} at {@code now}; lower id
   * first. Their ids are UUIDv7s, as Herald makes them, whose order in Java is the database's.
   */
  private List<NoticeRow> claimedInIdOrder(String owner, Instant now) throws SQLException {
    if (count("SELECT COUNT(*) FROM herald_notice") == 0) {
      insert(row().id(Ids.next(clock)));
      insert(row().id(Ids.next(clock)));
    }
    List<NoticeRow> got = new ArrayList<>(store.claim(new Claim(owner, now, now, now.plusSeconds(30), 10)));
    assertThat(got).hasSize(2);
    got.sort(java.util.Comparator.comparing(NoticeRow::id));
    return got;
  }

  /** A data source counting the deadlocks (and serialization failures) its statements report. */
  private static DataSource countingDeadlocks(DataSource real, AtomicInteger deadlocks) {
    return proxy(DataSource.class, real, (m, a) -> {
      Object result = m.invoke(real, a);
      if (!(result instanceof Connection c)) {
        return result;
      }
      return proxy(Connection.class, c, (cm, ca) -> {
        Object r = cm.invoke(c, ca);
        if (!(r instanceof PreparedStatement ps)) {
          return r;
        }
        return proxy(PreparedStatement.class, ps, (pm, pa) -> {
          try {
            return pm.invoke(ps, pa);
          } catch (InvocationTargetException e) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
              if (t instanceof SQLException sql && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()))) {
                deadlocks.incrementAndGet();
                break;
              }
            }
            throw e;
          }
        });
      });
    });
  }

  // ================================================================ batch update counts

  @Test
  void optimisticChecksStayExactWhenTheDriverReportsNoBatchCounts() {
    JdbcNoticeStore blind = new JdbcNoticeStore(withoutBatchCounts(dataSource()), dialect(), clock);
    NoticeRow other = claimOne(insert(row()), "n2");
    NoticeRow a = insert(row().due(T.minusSeconds(2)));
    NoticeRow b = insert(row().due(T.minusSeconds(1)));
    Instant lease = T.plusSeconds(30);

    List<NoticeRow> got = blind.claim(new Claim("n1", T, T, lease, 10));
    assertThat(got).containsExactly(leased(a, "n1", lease, T), leased(b, "n1", lease, T));

    Change stale = dev.herald.engine.Transitions.release(a, T);
    Change good = attempt(got.get(1), DeliveryResult.retry("again"), T);
    assertThat(written(blind.apply(List.of(stale, good)))).containsExactly(false, true);
    assertThat(blind.adopt("n2", "n2#x", List.of(got.get(0).id(), other.id(), UUID.randomUUID())))
        .containsExactly(other.id());
    assertThat(written(blind.apply(List.of(attempt(got.get(0), DeliveryResult.delivered(), T))))).containsExactly(true);
    assertThat(stored(a).notice().finishedAt()).isEqualTo(T);
    assertThat(stored(b)).isEqualTo(good.next());
  }

  /** A data source whose prepared statements execute batches but report {@link Statement#SUCCESS_NO_INFO} for each row. */
  private static DataSource withoutBatchCounts(DataSource real) {
    return proxy(DataSource.class, real, (m, a) -> {
      Object result = m.invoke(real, a);
      if (result instanceof Connection c) {
        return proxy(Connection.class, c, (cm, ca) -> {
          Object r = cm.invoke(c, ca);
          if (r instanceof PreparedStatement ps) {
            return proxy(PreparedStatement.class, ps, (pm, pa) -> {
              Object out = pm.invoke(ps, pa);
              if (pm.getName().equals("executeBatch")) {
                int[] counts = ((int[]) out).clone();
                Arrays.fill(counts, Statement.SUCCESS_NO_INFO);
                return counts;
              }
              return out;
            });
          }
          return r;
        });
      }
      return result;
    });
  }

  private interface Call {
    Object invoke(java.lang.reflect.Method method, Object[] args) throws Exception;
  }

  private static <T> T proxy(Class<T> type, T target, Call call) {
    return type.cast(Proxy.newProxyInstance(ClusterStoreContract.class.getClassLoader(), new Class<?>[] {type},
        (self, method, args) -> {
          try {
            return call.invoke(method, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        }));
  }

  // ================================================================ text

  @Test
  void errorsWithCharactersTheDatabaseRefusesAreStillRecorded() {
    NoticeRow claimed = claimOne(insert(row()));
    String error = "bad byte \u0000 from the receiver";
    Change retry = attempt(claimed, DeliveryResult.retry(error), T);

    assertThat(apply(retry)).as("recorded, not retried forever").containsExactly(true);
    String stored = stored(claimed).notice().lastError();
    assertThat(stored).isIn(error, error.replace('\u0000', '\uFFFD'));
    assertThat(store.attempts(claimed.id())).singleElement()
        .satisfies(a -> assertThat(a.detail()).isEqualTo(stored));
    assertThat(stored(claimed).status()).isNotEqualTo(IN_FLIGHT);
  }

  /** A fresh schema or database name for one test. */
  protected static String freshName() {
    return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }
}
