package dev.herald.bench;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Case 6: what the database itself can do with the rows Herald writes per delivery, with Herald's
 * batching but none of its code: claim (lease) {@code claimBatch} rows per transaction, then per
 * {@code writeBatch} outcomes one transaction that deletes the live rows, inserts them into
 * {@code herald_notice_history} and inserts one {@code herald_attempt} each. The claim uses the SQL of
 * Herald's claim strategy for the database (PostgreSQL: one UPDATE ... FOR UPDATE SKIP LOCKED ...
 * RETURNING; H2: SELECT, then batched version-checked UPDATEs).
 *
 * <p>Variants: {@code engine-shaped} claims on one thread and writes on another, as the engine's poller
 * and writer do; {@code one-tx} claims and archives a batch in a single transaction on one thread, the
 * fewest round trips and commits these rows can take. Two more show what a different engine could get
 * from the same database: {@code two-writers} is engine-shaped with two writer threads (two outcome
 * transactions in flight), and on PostgreSQL {@code set-based} is engine-shaped with each outcome batch
 * written as one statement (a data-modifying CTE over {@code unnest} arrays: delete, insert history from
 * the deleted rows, insert attempts) instead of three batches of one statement per row.
 */
final class Roof {
  static final String CASE = "roof";
  private static final String OWNER = "roof-node";

  private Roof() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    int warm = Math.min(ctx.o().jitWarmup, ctx.o().n);
    if (warm > 0) {
      System.out.printf("  warm-up, not recorded: roof of %,d%n", warm);
      try (BenchDb.Space space = db.open(CASE + "-warmup"); Progress.Quiet q = Progress.quiet()) {
        roof(ctx.quiet(), db, space, warm, "engine-shaped");
      }
    }
    for (int r = 0; r < ctx.o().repeat; r++) {
      List<String> variants = db.kind().equals("postgres")
          ? List.of("engine-shaped", "one-tx", "two-writers", "set-based")
          : List.of("engine-shaped", "one-tx", "two-writers");
      for (String variant : variants) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + variant)) {
          result = roof(ctx, db, space, ctx.o().n, variant);
        }
        ctx.add(result, db);
      }
    }
  }

  static Result roof(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int n, String variant) {
    Options o = ctx.o();
    DataSource ds = space.dataSource();
    try (Herald schema = Systems.herald(o, db, ds, c -> DeliveryResult.delivered(), new Systems.HeraldCounter())) {
      // built only to create Herald's schema; never started
    }
    long now = System.currentTimeMillis();
    Rows.heraldNotices(ds, db.kind(), n, i -> now - 1_000, "due notices");
    Sql sql = new Sql(ds, db.kind());
    Result.Builder rb = Result.of(CASE, "jdbc", variant, db.kind()).settings(o.common())
        .setting("n", n).setting("claimBatch", o.claimBatch).setting("writeBatch", o.writeBatch)
        .setting("maxHeld", o.maxHeld).setting("claim_sql", sql.postgres ? "UPDATE ... FOR UPDATE SKIP LOCKED RETURNING"
            : "SELECT, then batched UPDATE ... WHERE id = ? AND version = ?");
    System.out.printf("  %s %s on %s: %,d rows due%n", CASE, variant, db.kind(), n);
    AtomicLong written = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Map<String, Long> before = db.counters();
    long t0 = System.nanoTime();
    try (Jfr jfr = Jfr.start(o, CASE + "-" + variant + "-" + db.kind());
        WallProfiler wall = WallProfiler.start(o, CASE + " " + variant);
        Progress p = new Progress(CASE + " " + variant + " archived", written::get, n)) {
      switch (variant) {
        case "one-tx" -> oneTx(sql, n, o.claimBatch, written, o.timeoutSeconds);
        case "two-writers" -> engineShaped(sql, n, o, written, failure, 2, false);
        case "set-based" -> engineShaped(sql, n, o, written, failure, 1, true);
        default -> engineShaped(sql, n, o, written, failure, 1, false);
      }
    } catch (Exception e) {
      failure.compareAndSet(null, e);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    BenchDb.perDelivery(rb, before, db.counters(), written.get());
    long left = Rows.count(ds, "SELECT COUNT(*) FROM herald_notice");
    long archived = Rows.count(ds, "SELECT COUNT(*) FROM herald_notice_history");
    rb.metric("archived", written.get())
        .metric("seconds", seconds)
        .metric("deliveries_per_s", written.get() / seconds)
        .metric("rows_left", left);
    if (failure.get() != null) {
      rb.failed(failure.get().toString());
    } else if (left != 0 || archived != n) {
      rb.failed("check failed: " + left + " live rows left, " + archived + " archived (expected 0, " + n + ")");
    }
    return rb.build();
  }

  private static void oneTx(Sql sql, int n, int batch, AtomicLong written, long timeoutSeconds) throws SQLException {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    try (Connection c = sql.ds.getConnection()) {
      c.setAutoCommit(false);
      while (written.get() < n && System.nanoTime() < deadline) {
        List<Object[]> rows = sql.claim(c, batch);
        sql.archive(c, rows);
        c.commit();
        written.addAndGet(rows.size());
      }
      c.setAutoCommit(true);
    }
  }

  private static void engineShaped(Sql sql, int n, Options o, AtomicLong written, AtomicReference<Throwable> failure,
      int writers, boolean setBased) throws InterruptedException {
    BlockingQueue<Object[]> held = new ArrayBlockingQueue<>(o.maxHeld);
    long deadline = System.nanoTime() + o.timeoutSeconds * 1_000_000_000L;
    Thread claimer = Thread.ofPlatform().name("roof-claimer").start(() -> {
      long claimed = 0;
      try (Connection c = sql.ds.getConnection()) {
        c.setAutoCommit(false);
        while (claimed < n && failure.get() == null && System.nanoTime() < deadline) {
          int room = held.remainingCapacity();
          if (room == 0) {
            Thread.sleep(1);
            continue;
          }
          List<Object[]> rows = sql.claim(c, Math.min(o.claimBatch, room));
          c.commit();
          held.addAll(rows);
          claimed += rows.size();
        }
        c.setAutoCommit(true);
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    });
    List<Thread> writerThreads = new ArrayList<>();
    for (int w = 0; w < writers; w++) writerThreads.add(Thread.ofPlatform().name("roof-writer-" + w).start(() -> {
      List<Object[]> batch = new ArrayList<>(o.writeBatch);
      try (Connection c = sql.ds.getConnection()) {
        c.setAutoCommit(false);
        while (written.get() < n && failure.get() == null && System.nanoTime() < deadline) {
          Object[] first = held.poll(50, TimeUnit.MILLISECONDS);
          if (first == null) {
            continue;
          }
          batch.add(first);
          held.drainTo(batch, o.writeBatch - 1);
          if (setBased) {
            sql.archiveSetBased(c, batch);
          } else {
            sql.archive(c, batch);
          }
          c.commit();
          written.addAndGet(batch.size());
          batch.clear();
        }
        c.setAutoCommit(true);
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }));
    claimer.join();
    for (Thread t : writerThreads) {
      t.join();
    }
    if (written.get() < n && failure.get() == null) {
      failure.set(new BenchException("timeout after " + o.timeoutSeconds + " s"));
    }
  }

  /** The statements, with the column lists of the schema Herald created (so they follow its migrations). */
  private static final class Sql {
    final DataSource ds;
    final boolean postgres;
    final List<String> live;
    final List<String> history;
    final int[] historyFrom; // index into live, or -1 for a column set here
    final int idCol;
    final int versionCol;
    final String insertHistory;

    Sql(DataSource ds, String kind) {
      this.ds = ds;
      this.postgres = kind.equals("postgres");
      this.live = orderedColumns(ds, "herald_notice");
      this.history = orderedColumns(ds, "herald_notice_history");
      this.idCol = live.indexOf("id");
      this.versionCol = live.indexOf("version");
      historyFrom = new int[history.size()];
      for (int i = 0; i < history.size(); i++) {
        historyFrom[i] = live.indexOf(history.get(i));
      }
      insertHistory = "INSERT INTO herald_notice_history (" + String.join(", ", history) + ") VALUES ("
          + String.join(", ", java.util.Collections.nCopies(history.size(), "?")) + ")";
    }

    /** Leases up to {@code limit} due rows; returns them as leased (the in-memory copy a node holds). */
    List<Object[]> claim(Connection c, int limit) throws SQLException {
      long now = System.currentTimeMillis();
      long leaseUntil = now + 30_000;
      List<Object[]> out = new ArrayList<>(limit);
      if (postgres) {
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE herald_notice n SET status = 'IN_FLIGHT', owner = ?, lease_until = ?, version = n.version + 1,"
                + " updated_at = ? FROM (SELECT id, version FROM herald_notice WHERE due_at <= ? AND lease_until < ?"
                + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED) c"
                + " WHERE n.id = c.id AND n.version = c.version AND n.lease_until < ? RETURNING n.*")) {
          ps.setString(1, OWNER);
          ps.setLong(2, leaseUntil);
          ps.setLong(3, now);
          ps.setLong(4, now + 5_000);
          ps.setLong(5, now);
          ps.setInt(6, limit);
          ps.setLong(7, now);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(read(rs));
            }
          }
        }
        return out;
      }
      List<Object[]> candidates = new ArrayList<>(limit);
      try (PreparedStatement ps = c.prepareStatement("SELECT " + String.join(", ", live)
          + " FROM herald_notice WHERE due_at <= ? AND lease_until < ? ORDER BY due_at LIMIT ?")) {
        ps.setLong(1, now + 5_000);
        ps.setLong(2, now);
        ps.setInt(3, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            candidates.add(read(rs));
          }
        }
      }
      if (candidates.isEmpty()) {
        return out;
      }
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_notice SET status = 'IN_FLIGHT', owner = ?,"
          + " lease_until = ?, version = ?, updated_at = ? WHERE id = ? AND version = ? AND lease_until < ?")) {
        for (Object[] row : candidates) {
          long version = ((Number) row[versionCol]).longValue();
          ps.setString(1, OWNER);
          ps.setLong(2, leaseUntil);
          ps.setLong(3, version + 1);
          ps.setLong(4, now);
          ps.setObject(5, row[idCol]);
          ps.setLong(6, version);
          ps.setLong(7, now);
          ps.addBatch();
        }
        int[] counts = ps.executeBatch();
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] == 1) {
            Object[] row = candidates.get(i);
            row[versionCol] = ((Number) row[versionCol]).longValue() + 1;
            out.add(row);
          }
        }
      }
      return out;
    }

    /** Records each row as delivered: delete the live row (version-checked), insert history and the attempt. */
    void archive(Connection c, List<Object[]> rows) throws SQLException {
      if (rows.isEmpty()) {
        return;
      }
      long now = System.currentTimeMillis();
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_notice WHERE id = ? AND version = ?")) {
        for (Object[] row : rows) {
          ps.setObject(1, row[idCol]);
          ps.setLong(2, ((Number) row[versionCol]).longValue());
          ps.addBatch();
        }
        ps.executeBatch();
      }
      try (PreparedStatement ps = c.prepareStatement(insertHistory)) {
        for (Object[] row : rows) {
          for (int i = 0; i < history.size(); i++) {
            ps.setObject(i + 1, historyValue(history.get(i), historyFrom[i], row, now));
          }
          ps.addBatch();
        }
        ps.executeBatch();
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_attempt (notice_id, number, started_at,"
          + " duration_ms, outcome, detail, node) VALUES (?, 1, ?, 0, 'DELIVERED', NULL, ?)")) {
        for (Object[] row : rows) {
          ps.setObject(1, row[idCol]);
          ps.setLong(2, now);
          ps.setString(3, OWNER);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }

    /**
     * The same as {@link #archive}, as one statement: delete the batch's rows (version-checked), insert
     * their history from what was deleted, insert their attempts (PostgreSQL).
     */
    void archiveSetBased(Connection c, List<Object[]> rows) throws SQLException {
      if (rows.isEmpty()) {
        return;
      }
      if (setBasedSql == null) {
        List<String> exprs = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
          String col = history.get(i);
          exprs.add(switch (col) {
            case "status" -> "'SUCCEEDED'";
            case "attempts" -> "d.attempts + 1";
            case "last_attempt_at", "updated_at", "finished_at" -> "?3";
            case "version" -> "d.version + 1";
            default -> historyFrom[i] >= 0 ? "d." + col : "NULL";
          });
        }
        setBasedSql = "WITH d AS (DELETE FROM herald_notice n USING unnest(?1::uuid[], ?2::bigint[]) AS x(id, version)"
            + " WHERE n.id = x.id AND n.version = x.version RETURNING n.*),"
            + " h AS (INSERT INTO herald_notice_history (" + String.join(", ", history) + ") SELECT "
            + String.join(", ", exprs) + " FROM d RETURNING id)"
            + " INSERT INTO herald_attempt (notice_id, number, started_at, duration_ms, outcome, detail, node)"
            + " SELECT id, 1, ?3, 0, 'DELIVERED', NULL, ?4 FROM h";
        // JDBC has no numbered parameters: expand ?N into ? in order, binding by position below
        positions = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < setBasedSql.length(); i++) {
          char ch = setBasedSql.charAt(i);
          if (ch == '?' && i + 1 < setBasedSql.length() && Character.isDigit(setBasedSql.charAt(i + 1))) {
            positions.add(setBasedSql.charAt(i + 1) - '0');
            sb.append('?');
            i++;
          } else {
            sb.append(ch);
          }
        }
        setBasedSql = sb.toString();
      }
      Object[] ids = new Object[rows.size()];
      Long[] versions = new Long[rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        ids[i] = rows.get(i)[idCol];
        versions[i] = ((Number) rows.get(i)[versionCol]).longValue();
      }
      long now = System.currentTimeMillis();
      try (PreparedStatement ps = c.prepareStatement(setBasedSql)) {
        for (int p = 0; p < positions.size(); p++) {
          switch (positions.get(p)) {
            case 1 -> ps.setArray(p + 1, c.createArrayOf("uuid", ids));
            case 2 -> ps.setArray(p + 1, c.createArrayOf("bigint", versions));
            case 3 -> ps.setLong(p + 1, now);
            default -> ps.setString(p + 1, OWNER);
          }
        }
        ps.executeUpdate();
      }
    }

    private String setBasedSql;
    private List<Integer> positions;

    private Object historyValue(String column, int from, Object[] row, long now) {
      return switch (column) {
        case "status" -> "SUCCEEDED";
        case "attempts" -> 1;
        case "last_attempt_at", "updated_at", "finished_at" -> now;
        case "version" -> ((Number) row[versionCol]).longValue() + 1;
        default -> from >= 0 ? row[from] : null;
      };
    }

    private Object[] read(ResultSet rs) throws SQLException {
      Object[] row = new Object[live.size()];
      for (int i = 0; i < row.length; i++) {
        row[i] = rs.getObject(live.get(i));
      }
      return row;
    }

    private static List<String> orderedColumns(DataSource ds, String table) {
      try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE 1 = 0");
          ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData md = rs.getMetaData();
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          out.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
        }
        return out;
      } catch (SQLException e) {
        throw new BenchException("cannot read the columns of " + table + ": " + e.getMessage(), e);
      }
    }
  }
}
