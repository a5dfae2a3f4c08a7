package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.jdbc.MySqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract through MySQL Connector/J, so the MySQL driver's behaviour (its batch update
 * counts, its time types, its error codes) is tested on every run. By default against the in-process
 * MariaDB of {@link TestDatabases#mariaDb()}, one fresh database per test; set {@code
 * HERALD_TEST_MYSQL_URL} (e.g. {@code jdbc:mysql://localhost:3306/herald_test}) and, if needed,
 * {@code HERALD_TEST_MYSQL_USER} and {@code HERALD_TEST_MYSQL_PASSWORD} to run it on a real MySQL 8
 * instead. Every test then empties that database's herald_* tables first: give it a database of its
 * own.
 */
class MySqlNoticeStoreTest extends SkipLockedStoreContract {
  private static final String CONNECTOR_J = "com.mysql.cj.jdbc.Driver";

  private HikariDataSource pool;

  @Override
  protected DataSource dataSource() {
    if (pool == null) {
      String url = System.getenv("HERALD_TEST_MYSQL_URL");
      pool = url == null || url.isBlank() ? onMariaDb() : onRealMySql(url);
    }
    return pool;
  }

  /** A fresh database on the shared in-process MariaDB, reached through Connector/J. */
  private static HikariDataSource onMariaDb() {
    var server = TestDatabases.mariaDb();
    String database = freshName();
    String base = "jdbc:mysql://127.0.0.1:" + server.getConfiguration().getPort() + "/";
    TestDatabases.create(base + "?useSSL=false", "root", "", "CREATE DATABASE " + database);
    return connectorJ(base + database + "?useSSL=false", "root", "");
  }

  private static HikariDataSource onRealMySql(String url) {
    String user = System.getenv().getOrDefault("HERALD_TEST_MYSQL_USER", "root");
    String password = System.getenv().getOrDefault("HERALD_TEST_MYSQL_PASSWORD", "");
    HikariDataSource pool = connectorJ(url, user, password);
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      for (String table : herald(c)) {
        st.execute("DROP TABLE " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot empty the MySQL test database", e);
    }
    return pool;
  }

  /** A pool that can only use MySQL Connector/J, whatever else is on the class path. */
  private static HikariDataSource connectorJ(String url, String user, String password) {
    HikariConfig config = new HikariConfig();
    config.setDriverClassName(CONNECTOR_J);
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(16);
    config.setConnectionTimeout(10_000);
    config.setConnectionInitSql(TestDatabases.MYSQL_SESSION_ZONE);
    return new HikariDataSource(config);
  }

  private static List<String> herald(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "herald\\_%", new String[] {"TABLE"})) {
      while (rs.next()) {
        out.add(rs.getString("TABLE_NAME"));
      }
    }
    return out;
  }

  @AfterEach
  void closePool() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }

  @Test
  void runsThroughMySqlConnectorJInANonUtcSessionTimeZone() throws SQLException {
    assertThat(dialect()).isInstanceOf(MySqlDialect.class);
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@session.time_zone")) {
      assertThat(c.getMetaData().getDriverName()).startsWith("MySQL Connector/J");
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(TestDatabases.SESSION_OFFSET);
    }
  }
}
