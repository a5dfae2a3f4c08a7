package dev.herald.events;

import dev.herald.StoreException;
import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** What the event tables share: the database, its dialect, and a transaction of their own per call. */
abstract class EventSql {
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  final DataSource dataSource;
  final Dialect dialect;

  EventSql(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  <T> T inTransaction(String what, SqlWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new StoreException("cannot " + what + ": " + e.getMessage(), e);
    }
  }

}
