package dev.herald.store.jdbc;

import dev.herald.StoreException;
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
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned scripts in {@code <root>/<dialect>/} (listed, in order, in its {@code
 * migrations.txt}) that the database has not seen, each in its own transaction, recording them in a
 * version table ({@code herald_schema_version} for Herald's own). Nodes starting together take the
 * dialect's migration lock, so one migrates and the others find it done. Scripts are never edited
 * once released: a change is a new script. Modules with tables of their own (the server) reuse it.
 */
public final class SchemaMigrator {
  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private final String root;
  private final String versionTable;

  SchemaMigrator(DataSource dataSource, Dialect dialect, Clock clock) {
    this(dataSource, dialect, clock, "db/herald", "herald_schema_version");
  }

  private SchemaMigrator(DataSource dataSource, Dialect dialect, Clock clock, String root, String versionTable) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
    this.root = root;
    this.versionTable = versionTable;
  }

  /**
   * Migrates another set of tables the same way: scripts under {@code root/<dialect>/} (e.g. {@code
   * db/herald-server/postgresql/}), applied versions recorded in {@code versionTable}.
   */
  public static void migrate(DataSource dataSource, Clock clock, String root, String versionTable) {
    new SchemaMigrator(dataSource, Dialect.detect(dataSource), clock, root, versionTable).migrate();
  }

  void migrate() {
    String folder = root + "/" + dialect.name() + "/";
    List<String> scripts = lines(read(folder + "migrations.txt"));
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(true);
      dialect.lockMigrations(c); // nodes starting together: one migrates, the others wait and find it done
      try {
        c.setAutoCommit(false);
        migrate(c, folder, scripts);
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        unlockQuietly(c, e);
        throw e;
      }
      c.setAutoCommit(true);
      dialect.unlockMigrations(c);
      c.setAutoCommit(auto);
    } catch (SQLException e) {
      throw new StoreException("Herald schema migration failed: " + e.getMessage(), e);
    }
  }

  /**
   * Applies what is missing, one transaction per script. (MySQL and MariaDB commit each DDL
   * statement at once, so a script that fails there half-way must be finished by hand.)
   */
  private void migrate(Connection c, String folder, List<String> scripts) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS " + versionTable + " ("
              + "version INT NOT NULL PRIMARY KEY, script VARCHAR(200) NOT NULL, applied_at BIGINT NOT NULL)");
    }
    c.commit();
    int current = currentVersion(c, versionTable);
    for (String script : scripts) {
      int version = versionOf(script);
      if (version <= current) {
        continue;
      }
      log.info("Herald schema: applying {}{} ({})", folder.startsWith("db/herald/") ? "" : root + " ", script,
          dialect.name());
      try (Statement st = c.createStatement()) {
        for (String sql : statements(read(folder + script))) {
          st.execute(sql);
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO " + versionTable + " (version, script, applied_at) VALUES (?, ?, ?)")) {
        ps.setInt(1, version);
        ps.setString(2, script);
        ps.setLong(3, clock.millis());
        ps.executeUpdate();
      }
      c.commit();
      current = version;
    }
  }

  private void unlockQuietly(Connection c, Exception cause) {
    try {
      c.setAutoCommit(true);
      dialect.unlockMigrations(c);
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed); // a lost connection releases its locks anyway
    }
  }

  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed);
    }
  }

  private static int currentVersion(Connection c, String versionTable) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + versionTable)) {
      rs.next();
      return rs.getInt(1);
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

  private static List<String> lines(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
  }

  private static String read(String resource) {
    try (InputStream in = SchemaMigrator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing migration resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }
}
