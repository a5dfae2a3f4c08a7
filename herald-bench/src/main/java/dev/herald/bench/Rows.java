package dev.herald.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import java.util.zip.CRC32;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Writes rows straight into the tables, fast (COPY on PostgreSQL, JDBC batches on H2): the backlog a
 * measurement starts from is set up, not measured. Herald's rows are written as its intake writes them
 * (PENDING, version 1, unleased), db-scheduler's as its {@code schedule} writes them (unpicked, version 1).
 */
final class Rows {
  static final String DEFINITION = "bench";
  static final String DBS_TASK = "bench";
  private static final int CHUNK = 100_000;

  private Rows() {}

  /** Due time of row {@code i}, in epoch millis. */
  interface DueAt extends LongUnaryOperator {}

  // ================================================================ Herald

  /** Loads {@code count} PENDING notices of {@link #DEFINITION} into {@code herald_notice}. */
  static void heraldNotices(DataSource ds, String kind, int count, DueAt dueAt, String label) {
    heraldNotices(ds, kind, count, dueAt, label, false);
  }

  /**
   * {@code settle}: VACUUM ANALYZE afterwards (PostgreSQL), as a backlog that has been there a while
   * is; otherwise the autovacuum of a freshly loaded big table runs during the measurement.
   */
  static void heraldNotices(DataSource ds, String kind, int count, DueAt dueAt, String label, boolean settle) {
    Set<String> columns = columns(ds, "herald_notice");
    boolean shard = columns.contains("shard");
    String cols = "id, definition, payload, status, attempts, retry_base, fire_at, due_at, created_at, updated_at,"
        + " lease_until, version" + (shard ? ", shard" : "");
    long now = System.currentTimeMillis();
    AtomicLong done = new AtomicLong();
    UuidV7 ids = new UuidV7(now);
    try (Progress p = new Progress("loading " + label, done::get, count); Connection c = ds.getConnection()) {
      if (kind.equals("postgres")) {
        var copy = c.unwrap(PGConnection.class).getCopyAPI();
        StringBuilder sb = new StringBuilder(CHUNK * 160);
        for (int from = 0; from < count; from += CHUNK) {
          int to = Math.min(count, from + CHUNK);
          sb.setLength(0);
          for (int i = from; i < to; i++) {
            UUID id = ids.next();
            long due = dueAt.applyAsLong(i);
            sb.append(id).append('\t').append(DEFINITION).append("\t{\"seq\":").append(i).append("}\tPENDING\t0\t0\t")
                .append(due).append('\t').append(due).append('\t').append(now).append('\t').append(now)
                .append("\t0\t1");
            if (shard) {
              sb.append('\t').append(shardOf(id));
            }
            sb.append('\n');
          }
          byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
          CopyIn in = copy.copyIn("COPY herald_notice (" + cols + ") FROM STDIN");
          in.writeToCopy(bytes, 0, bytes.length);
          in.endCopy();
          done.set(to);
        }
      } else {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_notice (" + cols
            + ") VALUES (?, ?, ?, 'PENDING', 0, 0, ?, ?, ?, ?, 0, 1" + (shard ? ", ?" : "") + ")")) {
          for (int i = 0; i < count; i++) {
            UUID id = ids.next();
            long due = dueAt.applyAsLong(i);
            ps.setObject(1, id);
            ps.setString(2, DEFINITION);
            ps.setString(3, "{\"seq\":" + i + "}");
            ps.setLong(4, due);
            ps.setLong(5, due);
            ps.setLong(6, now);
            ps.setLong(7, now);
            if (shard) {
              ps.setInt(8, shardOf(id));
            }
            ps.addBatch();
            if ((i + 1) % 1_000 == 0 || i == count - 1) {
              ps.executeBatch();
              c.commit();
              done.set(i + 1);
            }
          }
        } finally {
          c.setAutoCommit(auto);
        }
      }
    } catch (SQLException e) {
      throw new BenchException("cannot load herald_notice rows: " + e.getMessage(), e);
    }
    if (settle && kind.equals("postgres")) {
      exec(ds, "VACUUM ANALYZE herald_notice");
    } else {
      analyze(ds, kind, "herald_notice");
    }
  }

  /** Herald's shard of a notice without a shard key (see dev.herald.spi.Shards): CRC32 of the id's text, mod 256. */
  static int shardOf(UUID id) {
    CRC32 crc = new CRC32();
    crc.update(id.toString().getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % 256);
  }

  // ================================================================ db-scheduler

  /** db-scheduler's documented {@code scheduled_tasks} table (16.x), for PostgreSQL or H2 (its HSQLDB form). */
  static void createDbSchedulerTable(DataSource ds, String kind) {
    String ts = "timestamp with time zone";
    String table = kind.equals("postgres")
        ? "create table scheduled_tasks (task_name text not null, task_instance text not null, task_data bytea,"
            + " execution_time " + ts + " not null, picked BOOLEAN not null, picked_by text, last_success " + ts + ","
            + " last_failure " + ts + ", consecutive_failures INT, last_heartbeat " + ts + ", version BIGINT not null,"
            + " priority SMALLINT, PRIMARY KEY (task_name, task_instance))"
        : "create table scheduled_tasks (task_name varchar(100) not null, task_instance varchar(100) not null,"
            + " task_data blob, execution_time " + ts + " not null, picked boolean not null, picked_by varchar(50),"
            + " last_success " + ts + ", last_failure " + ts + ", consecutive_failures int, last_heartbeat " + ts + ","
            + " version bigint not null, priority smallint, primary key (task_name, task_instance))";
    exec(ds, table,
        "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
        "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
        "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority desc, execution_time asc)");
  }

  /** Loads {@code count} unpicked one-time executions of {@link #DBS_TASK}, instance ids "0", "1", ... */
  static void dbSchedulerTasks(DataSource ds, String kind, int count, DueAt dueAt, String label) {
    AtomicLong done = new AtomicLong();
    try (Progress p = new Progress("loading " + label, done::get, count); Connection c = ds.getConnection()) {
      if (kind.equals("postgres")) {
        var copy = c.unwrap(PGConnection.class).getCopyAPI();
        StringBuilder sb = new StringBuilder(CHUNK * 80);
        for (int from = 0; from < count; from += CHUNK) {
          int to = Math.min(count, from + CHUNK);
          sb.setLength(0);
          for (int i = from; i < to; i++) {
            sb.append(DBS_TASK).append('\t').append(i).append('\t')
                .append(Instant.ofEpochMilli(dueAt.applyAsLong(i))).append("\tf\t1\n");
          }
          byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
          CopyIn in = copy.copyIn("COPY scheduled_tasks (task_name, task_instance, execution_time, picked, version) FROM STDIN");
          in.writeToCopy(bytes, 0, bytes.length);
          in.endCopy();
          done.set(to);
        }
      } else {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked, version) VALUES (?, ?, ?, false, 1)")) {
          for (int i = 0; i < count; i++) {
            ps.setString(1, DBS_TASK);
            ps.setString(2, Integer.toString(i));
            ps.setTimestamp(3, Timestamp.from(Instant.ofEpochMilli(dueAt.applyAsLong(i))));
            ps.addBatch();
            if ((i + 1) % 1_000 == 0 || i == count - 1) {
              ps.executeBatch();
              c.commit();
              done.set(i + 1);
            }
          }
        } finally {
          c.setAutoCommit(auto);
        }
      }
    } catch (SQLException e) {
      throw new BenchException("cannot load scheduled_tasks rows: " + e.getMessage(), e);
    }
    analyze(ds, kind, "scheduled_tasks");
  }

  // ================================================================ plumbing

  /** Fresh statistics after a bulk load, as autovacuum would soon gather them (PostgreSQL only). */
  static void analyze(DataSource ds, String kind, String table) {
    if (kind.equals("postgres")) {
      exec(ds, "ANALYZE " + table);
    }
  }

  static void exec(DataSource ds, String... sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new BenchException("cannot run SQL: " + e.getMessage() + " (" + String.join("; ", sql) + ")", e);
    }
  }

  static long count(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new BenchException("cannot count: " + e.getMessage() + " (" + sql + ")", e);
    }
  }

  /** The count, or 0 if the query fails (the table does not exist yet). */
  static long countOrZero(DataSource ds, String sql) {
    try {
      return count(ds, sql);
    } catch (BenchException e) {
      return 0;
    }
  }

  static Set<String> columns(DataSource ds, String table) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      Set<String> out = new HashSet<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        out.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
      }
      return out;
    } catch (SQLException e) {
      throw new BenchException("cannot read the columns of " + table + ": " + e.getMessage(), e);
    }
  }

  /** Time-ordered UUIDs (version 7), like Herald's own: 48 bits of milliseconds, a 12-bit counter, random bits. */
  static final class UuidV7 {
    private long millis;
    private int counter;

    UuidV7(long startMillis) {
      this.millis = startMillis;
    }

    synchronized UUID next() {
      if (++counter > 0xFFF) {
        counter = 0;
        millis++;
      }
      long msb = (millis << 16) | 0x7000L | counter;
      long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
      return new UUID(msb, lsb);
    }
  }
}
