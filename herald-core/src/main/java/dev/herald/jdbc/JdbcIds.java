package dev.herald.jdbc;

import dev.herald.store.jdbc.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Notice ids as Herald's tables store them: {@code UUID} on H2 and PostgreSQL, the UUID's 16 bytes in
 * order ({@code BINARY(16)}) on MySQL and MariaDB. A table that refers to notices stores their ids the
 * same way, so that it can be joined with Herald's (see {@link dev.herald.NoticeScope}).
 */
public final class JdbcIds {
  private final Dialect dialect;

  private JdbcIds(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The ids of the database behind {@code dataSource} (asked once, here). */
  public static JdbcIds of(DataSource dataSource) {
    return new JdbcIds(Dialect.detect(dataSource));
  }

  /** Binds {@code id} to parameter {@code index}. */
  public void set(PreparedStatement ps, int index, UUID id) throws SQLException {
    dialect.setId(ps, index, id);
  }

  /** The id in {@code column} of the current row; null for SQL NULL. */
  public UUID get(ResultSet rs, String column) throws SQLException {
    return dialect.getId(rs, column);
  }
}
