package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.jdbc.MySqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The store contract on a real MySQL server, where one is reachable: set {@code
 * HERALD_TEST_MYSQL_URL} (e.g. {@code jdbc:mysql://localhost:3306/herald_test}, MySQL Connector/J
 * and the MariaDB driver are both on the test class path) and, if needed, {@code
 * HERALD_TEST_MYSQL_USER} and {@code HERALD_TEST_MYSQL_PASSWORD}. Every test empties that database's
 * herald_* tables first: give it a database of its own.
 */
@EnabledIfEnvironmentVariable(named = "HERALD_TEST_MYSQL_URL", matches = ".+")
class MySqlNoticeStoreTest extends ClusterStoreContract {
  private HikariDataSource pool;

  @Override
  protected DataSource dataSource() {
    if (pool == null) {
      String user = System.getenv().getOrDefault("HERALD_TEST_MYSQL_USER", "root");
      String password = System.getenv().getOrDefault("HERALD_TEST_MYSQL_PASSWORD", "");
      pool = TestDatabases.pool(System.getenv("HERALD_TEST_MYSQL_URL"), user, password,
          TestDatabases.MYSQL_SESSION_ZONE, 16);
      try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
        for (String table : herald(c)) {
          st.execute("DROP TABLE " + table);
        }
      } catch (SQLException e) {
        throw new IllegalStateException("cannot empty the MySQL test database", e);
      }
    }
    return pool;
  }

  private static java.util.List<String> herald(Connection c) throws SQLException {
    java.util.List<String> out = new java.util.ArrayList<>();
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
  void isDetectedAsMySqlOrMariaDb() {
    assertThat(dialect()).isInstanceOf(MySqlDialect.class);
  }
}
