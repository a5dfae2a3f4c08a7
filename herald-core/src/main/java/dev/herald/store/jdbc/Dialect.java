package dev.herald.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What differs between databases. The store's SQL is otherwise portable (LIMIT/OFFSET, epoch-millis
 * BIGINT times, no time-zone types).
 */
public interface Dialect {

  /** The folder under {@code db/herald/} holding this database's migrations. */
  String name();

  /** How the claim finds and leases rows; see {@link ClaimStrategy}. */
  ClaimStrategy claimStrategy();

  /** Whether the exception is a unique-key violation. */
  default boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  default void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setObject(index, id);
  }

  default UUID getId(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  /** Picks the dialect from the database product name. */
  static Dialect detect(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      if (product.contains("h2")) {
        return new H2Dialect();
      }
      throw new IllegalArgumentException(
          "Herald has no dialect for database '" + product + "' yet; supported: H2");
    } catch (SQLException e) {
      throw new dev.herald.StoreException("cannot connect to detect the database: " + e.getMessage(), e);
    }
  }
}
