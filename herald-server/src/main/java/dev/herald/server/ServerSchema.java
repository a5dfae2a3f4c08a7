package dev.herald.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's own tables ({@code herald_server_*}), migrated like the core's: versioned scripts in
 * {@code db/herald-server/<database>/} listed in {@code migrations.txt}, each applied once in its own
 * transaction and recorded in {@code herald_server_schema_version}. Nodes starting together take a
 * database lock (PostgreSQL advisory lock, MySQL GET_LOCK), so one migrates and the others find it
 * done. A released script is never edited: a change is a new script.
 */
final class ServerSchema {
  private static final Logger log = LoggerFactory.getLogger(ServerSchema.class);
  private static final long PG_LOCK = 0x4865_7261_6c64_5356L; // "HeraldSV"
  private static final String MYSQL_LOCK = "'herald_server_migration'";
  private static final ReentrantLock H2_LOCK = new ReentrantLock(); // one process opens an H2 file

  private ServerSchema() {}

  /** Applies the scripts the database has not seen yet. */
  static void migrate(DataSource dataSource, Clock clock) {
    try (Connection c = dataSource.getConnection()) {
      String db = databaseOf(c);
      String folder = "db/herald-server/" + db + "/";
      List<String> scripts = read(folder + "migrations.txt").lines().map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(true);
      lock(c, db);
      try {
        c.setAutoCommit(false);
        apply(c, folder, scripts, clock);
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
        unlock(c, db);
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Herald server schema migration failed: " + e.getMessage(), e);
    }
  }

  static String databaseOf(Connection c) throws SQLException {
    String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("h2")) {
      return "h2";
    }
    if (product.contains("postgresql")) {
      return "postgresql";
    }
    if (product.contains("mysql") || product.contains("mariadb")) {
      return "mysql";
    }
    throw new IllegalStateException("the Herald server supports H2, PostgreSQL, MySQL and MariaDB, not " + product);
  }

  private static void apply(Connection c, String folder, List<String> scripts, Clock clock) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS herald_server_schema_version ("
          + "version INT NOT NULL PRIMARY KEY, script VARCHAR(200) NOT NULL, applied_at BIGINT NOT NULL)");
    }
    c.commit();
    int current;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(version), 0) FROM herald_server_schema_version")) {
      rs.next();
      current = rs.getInt(1);
    }
    for (String script : scripts) {
      int version = versionOf(script);
      if (version <= current) {
        continue;
      }
      log.info("Herald server schema: applying {}", script);
      try (Statement st = c.createStatement()) {
        for (String sql : statements(read(folder + script))) {
          st.execute(sql);
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO herald_server_schema_version (version, script, applied_at) VALUES (?, ?, ?)")) {
        ps.setInt(1, version);
        ps.setString(2, script);
        ps.setLong(3, clock.millis());
        ps.executeUpdate();
      }
      c.commit();
      current = version;
    }
  }

  private static void lock(Connection c, String db) throws SQLException {
    switch (db) {
      case "postgresql" -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
          ps.setLong(1, PG_LOCK);
          ps.executeQuery().close();
        }
      }
      case "mysql" -> {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT GET_LOCK(" + MYSQL_LOCK + ", 300)")) {
          if (!rs.next() || rs.getInt(1) != 1) {
            throw new SQLException("could not take the server's migration lock (GET_LOCK) within 300 s");
          }
        }
      }
      default -> H2_LOCK.lock();
    }
  }

  private static void unlock(Connection c, String db) throws SQLException {
    switch (db) {
      case "postgresql" -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
          ps.setLong(1, PG_LOCK);
          ps.executeQuery().close();
        }
      }
      case "mysql" -> {
        try (Statement st = c.createStatement()) {
          st.executeQuery("SELECT RELEASE_LOCK(" + MYSQL_LOCK + ")").close();
        }
      }
      default -> {
        if (H2_LOCK.isHeldByCurrentThread()) {
          H2_LOCK.unlock();
        }
      }
    }
  }

  static int versionOf(String script) {
    if (!script.startsWith("V") || !script.contains("__")) {
      throw new IllegalStateException("migration script name must look like V<n>__<what>.sql: " + script);
    }
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  /** Splits a script on semicolons at line ends; drops comment-only lines. */
  static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String sql = current.toString().strip();
        out.add(sql.substring(0, sql.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      out.add(current.toString().strip());
    }
    return out;
  }

  private static String read(String resource) {
    try (InputStream in = ServerSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing migration resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }
}
