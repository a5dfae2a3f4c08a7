package dev.herald.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.Herald;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * A database to benchmark on. Every measurement gets a fresh {@link Space} of its own (an H2 file, or a
 * PostgreSQL schema), so that no run inherits another's rows, dead tuples or caches of its tables.
 */
abstract class BenchDb implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();

  /** A fresh, empty database for one measurement; closing it deletes it. */
  interface Space extends AutoCloseable {
    DataSource dataSource();

    /** Arguments that point {@code herald-server.jar} at this space; none: the server's own embedded H2. */
    default List<String> serverArgs() {
      return List.of();
    }

    @Override
    void close();
  }

  abstract String kind();

  /** Product, version, where, and the settings that matter for commit cost. */
  abstract Map<String, Object> info();

  abstract Space open(String label);

  /**
   * Database-wide counters whose difference over a run says what the run cost the database; empty where
   * unknown (H2). PostgreSQL: write transactions (transaction ids handed out) and WAL bytes.
   */
  Map<String, Long> counters() {
    return cpu(null);
  }

  /**
   * CPU used so far by this JVM, and by the local processes named {@code dbProcess} (nginx's, a
   * RabbitMQ's), from /proc; what is unknown is left out.
   */
  static Map<String, Long> cpu(String dbProcess) {
    return cpu(dbProcess, -1);
  }

  /**
   * The same, counting only the processes named {@code dbProcess} that are {@code root} or its children
   * when {@code root} is positive: one PostgreSQL server's postmaster and backends, not another's
   * running on the same machine.
   */
  static Map<String, Long> cpu(String dbProcess, long root) {
    Map<String, Long> m = new LinkedHashMap<>();
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      m.put("jvm_cpu_ns", os.getProcessCpuTime());
    }
    if (dbProcess != null && Files.isDirectory(Path.of("/proc"))) {
      long ticks = 0;
      boolean any = false;
      try (var dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
        for (Path d : dirs) {
          try {
            String stat = Files.readString(d.resolve("stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            if (open < 0 || close < 0 || !stat.substring(open + 1, close).equals(dbProcess)) {
              continue;
            }
            String[] f = stat.substring(close + 2).split(" ");
            if (root > 0 && !d.getFileName().toString().equals(Long.toString(root)) && Long.parseLong(f[1]) != root) {
              continue; // f[1]: the parent's pid (field 4)
            }
            // utime, stime (fields 14, 15) and cutime, cstime (16, 17): the CPU of children that ended, such as
            // PostgreSQL backends of a closed pool, stays counted in their parent's
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            any = true;
          } catch (IOException | RuntimeException e) {
            // the process ended meanwhile
          }
        }
      } catch (IOException e) {
        // no /proc
      }
      if (any) {
        m.put("db_cpu_ms", ticks * 10); // USER_HZ = 100 on Linux
      }
    }
    return m;
  }

  /** Adds the per-delivery cost between two {@link #counters()} snapshots to a result. */
  static void perDelivery(Result.Builder rb, Map<String, Long> before, Map<String, Long> after, long deliveries) {
    if (deliveries <= 0) {
      return;
    }
    if (before.containsKey("jvm_cpu_ns") && after.containsKey("jvm_cpu_ns")) {
      double jvm = (after.get("jvm_cpu_ns") - before.get("jvm_cpu_ns")) / 1e6;
      rb.metric("jvm_cpu_ms", jvm).metric("jvm_cpu_us_per_delivery", jvm * 1000 / deliveries);
    }
    if (before.containsKey("db_cpu_ms") && after.containsKey("db_cpu_ms")) {
      double dbCpu = after.get("db_cpu_ms") - before.get("db_cpu_ms");
      rb.metric("db_cpu_ms", dbCpu).metric("db_cpu_us_per_delivery", dbCpu * 1000 / deliveries);
    }
    if (!before.containsKey("xid") || !after.containsKey("xid")) {
      return;
    }
    // each snapshot takes one transaction id itself
    long tx = after.get("xid") - before.get("xid") - 1;
    long wal = after.get("wal_bytes") - before.get("wal_bytes");
    rb.metric("db_write_transactions", tx)
        .metric("db_write_transactions_per_delivery", (double) tx / deliveries)
        .metric("db_wal_mb", wal / 1048576.0)
        .metric("db_wal_bytes_per_delivery", (double) wal / deliveries);
  }

  @Override
  public abstract void close();

  static BenchDb create(String kind, Options o, Path tmp) {
    return switch (kind) {
      case "h2" -> new H2(tmp.resolve("h2"), o.pool());
      case "postgres" -> new Postgres(o, tmp.resolve("pg"));
      default -> throw new IllegalArgumentException(kind);
    };
  }

  static String label(String label) {
    return label.replaceAll("[^a-z0-9]", "_") + "_" + SEQ.incrementAndGet();
  }

  static Map<String, Object> metadata(DataSource ds) {
    Map<String, Object> m = new LinkedHashMap<>();
    try (Connection c = ds.getConnection()) {
      m.put("product", c.getMetaData().getDatabaseProductName());
      m.put("version", c.getMetaData().getDatabaseProductVersion());
      m.put("driver", c.getMetaData().getDriverName() + " " + c.getMetaData().getDriverVersion());
    } catch (SQLException e) {
      throw new BenchException("cannot read database metadata: " + e.getMessage(), e);
    }
    return m;
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      System.err.println("warning: cannot delete " + dir + ": " + e.getMessage());
    }
  }

  // ================================================================ H2

  /** H2 in files, with the embedded default's URL (WRITE_DELAY=0) and pool (H2's own, 32 connections by default). */
  static final class H2 extends BenchDb {
    private final Path base;
    private final int pool;
    private Map<String, Object> info;

    H2(Path base, int pool) {
      this.base = base;
      this.pool = pool;
    }

    @Override
    String kind() {
      return "h2";
    }

    @Override
    Space open(String label) {
      Path dir = base.resolve(label(label));
      JdbcConnectionPool ds = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("db")), "sa", "");
      ds.setMaxConnections(pool);
      if (info == null) {
        info = metadata(ds);
        info.put("url", Herald.Builder.h2Url(base.resolve("<run>").resolve("db")));
        info.put("mode", "embedded file, one per measurement");
      }
      return new Space() {
        @Override
        public DataSource dataSource() {
          return ds;
        }

        @Override
        public void close() {
          ds.dispose();
          deleteTree(dir);
        }
      };
    }

    @Override
    Map<String, Object> info() {
      if (info == null) {
        open("probe").close();
      }
      return info;
    }

    @Override
    public void close() {
      deleteTree(base);
    }
  }

  // ================================================================ PostgreSQL

  /** PostgreSQL: embedded (zonky) in a temp dir, or a server at --pg-url. One schema per measurement. */
  static final class Postgres extends BenchDb {
    private final Options o;
    private final EmbeddedPostgres embedded;
    private final String url;
    private final String user;
    private final String password;
    private final HikariDataSource admin;
    private final Map<String, Object> info;
    private final boolean local;
    /** The server's postmaster, when it runs here: its processes are the database's CPU (-1: any "postgres"). */
    private final long postmaster;

    Postgres(Options o, Path dir) {
      this.o = o;
      try {
        if (o.pgUrl == null) {
          Files.createDirectories(dir);
          embedded = EmbeddedPostgres.builder()
              .setOverrideWorkingDirectory(dir.toFile())
              .setServerConfig("synchronous_commit", o.pgSyncCommit)
              .setServerConfig("fsync", o.pgFsync)
              .setServerConfig("max_connections", "300")
              .start();
          url = embedded.getJdbcUrl("postgres", "postgres");
          user = "postgres";
          password = "";
        } else {
          embedded = null;
          url = o.pgUrl;
          user = o.pgUser;
          password = o.pgPassword;
        }
      } catch (IOException e) {
        throw new BenchException("cannot start the embedded PostgreSQL: " + e.getMessage(), e);
      }
      local = embedded != null || url.contains("//localhost") || url.contains("//127.0.0.1");
      admin = pool(null, 2, "bench-admin");
      postmaster = local ? postmaster(admin) : -1;
      info = metadata(admin);
      info.put("url", url.replaceAll("password=[^&]*", "password=***"));
      if (!o.pgProps.isEmpty()) {
        info.put("driver_properties", o.pgProps.toString());
      }
      info.put("mode", embedded != null ? "embedded (zonky), one schema per measurement" : "external, one schema per measurement");
      try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
        for (String setting : new String[] {"synchronous_commit", "fsync", "shared_buffers", "max_connections",
            "wal_level", "autovacuum", "full_page_writes", "checkpoint_timeout", "max_wal_size"}) {
          try (ResultSet rs = st.executeQuery("SHOW " + setting)) {
            rs.next();
            info.put(setting, rs.getString(1));
          }
        }
      } catch (SQLException e) {
        throw new BenchException("cannot read PostgreSQL settings: " + e.getMessage(), e);
      }
    }

    /** The parent of a backend of ours; -1 if it cannot be told (another machine's server, no /proc). */
    private static long postmaster(DataSource ds) {
      try (Connection c = ds.getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        return ProcessHandle.of(rs.getLong(1)).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
      } catch (SQLException e) {
        return -1;
      }
    }

    private HikariDataSource pool(String schema, int size, String name) {
      HikariConfig c = new HikariConfig();
      c.setJdbcUrl(url);
      c.setUsername(user);
      c.setPassword(password);
      c.setMaximumPoolSize(size);
      c.setMinimumIdle(Math.min(size, 4));
      c.setPoolName(name);
      if (schema != null) {
        c.addDataSourceProperty("currentSchema", schema);
        o.pgProps.forEach(c::addDataSourceProperty);
      }
      return new HikariDataSource(c);
    }

    @Override
    String kind() {
      return "postgres";
    }

    @Override
    Map<String, Object> info() {
      return info;
    }

    @Override
    Map<String, Long> counters() {
      try (Connection c = admin.getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT txid_current(), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
        rs.next();
        Map<String, Long> m = cpu(local ? "postgres" : null, postmaster);
        m.put("xid", rs.getLong(1));
        m.put("wal_bytes", rs.getLong(2));
        return m;
      } catch (SQLException e) {
        System.err.println("warning: cannot read PostgreSQL counters: " + e.getMessage());
        return Map.of();
      }
    }

    @Override
    Space open(String label) {
      String schema = "herald_bench_" + label(label);
      exec("CREATE SCHEMA " + schema);
      HikariDataSource ds = pool(schema, o.pool(), schema);
      return new Space() {
        @Override
        public DataSource dataSource() {
          return ds;
        }

        @Override
        public List<String> serverArgs() {
          String withSchema = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
          List<String> args = new java.util.ArrayList<>(List.of("--spring.datasource.url=" + withSchema,
              "--spring.datasource.username=" + user, "--spring.datasource.password=" + password));
          o.pgProps.forEach((k, v) -> args.add("--spring.datasource.hikari.data-source-properties." + k + "=" + v));
          return args;
        }

        @Override
        public void close() {
          ds.close();
          exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
      };
    }

    private void exec(String sql) {
      try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
        st.execute(sql);
      } catch (SQLException e) {
        throw new BenchException("cannot " + sql + ": " + e.getMessage(), e);
      }
    }

    @Override
    public void close() {
      admin.close();
      if (embedded != null) {
        try {
          embedded.close();
        } catch (IOException e) {
          System.err.println("warning: cannot stop the embedded PostgreSQL: " + e.getMessage());
        }
      }
    }
  }
}
