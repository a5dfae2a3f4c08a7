package dev.herald.store.jdbc;

import dev.herald.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the store's parts talk to the database: one transaction per unit of work, run again when the
 * database picked it as a deadlock victim, and batches whose per-row update counts are exact (or
 * one statement per row where the driver cannot say).
 */
final class Transactions {
  private static final Logger log = LoggerFactory.getLogger(JdbcNoticeStore.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  /**
   * Whether the driver reports one update count per row of a batch. The optimistic checks rely on
   * them; a driver that answers {@link Statement#SUCCESS_NO_INFO} (MariaDB Connector/J with {@code
   * useBulkStmts=true}, MySQL Connector/J rewriting batches) turns this off, and the store then runs
   * such statements one by one.
   */
  private volatile boolean exactBatchCounts = true;

  Transactions(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Binds one item's parameters of a batched statement. */
  @FunctionalInterface
  interface RowBinder<T> {
    void bind(PreparedStatement ps, T item) throws SQLException;
  }

  /** A batch came back without per-row update counts; the transaction is redone row by row. */
  private static final class InexactBatchCounts extends RuntimeException {
    InexactBatchCounts() {
      super(null, null, false, false);
    }
  }

  /**
   * Runs the statement once per item, batched, and returns each item's exact update count, which
   * the optimistic checks rely on. If the driver does not report them, the whole transaction is
   * rolled back and redone with one execution per item (see {@link #exactBatchCounts}).
   */
  <T> int[] executeCounted(PreparedStatement ps, List<T> items, RowBinder<T> binder) throws SQLException {
    int[] counts = new int[items.size()];
    if (!exactBatchCounts) {
      for (int i = 0; i < items.size(); i++) {
        binder.bind(ps, items.get(i));
        counts[i] = ps.executeUpdate();
      }
      return counts;
    }
    for (T item : items) {
      binder.bind(ps, item);
      ps.addBatch();
    }
    int[] batch = ps.executeBatch();
    if (batch.length != items.size()) {
      throw new InexactBatchCounts();
    }
    for (int i = 0; i < batch.length; i++) {
      if (batch[i] < 0) {
        throw new InexactBatchCounts();
      }
      counts[i] = batch[i];
    }
    return counts;
  }

  void beginReadCommitted(Connection c) throws SQLException {
    if (dialect.beginReadCommitted() != null) {
      try (Statement st = c.createStatement()) {
        st.execute(dialect.beginReadCommitted());
      }
    }
  }

  /** Attempts of a transaction the database rolled back to break a deadlock or a serialization conflict. */
  private static final int DEADLOCK_ATTEMPTS = 3;

  /**
   * Runs {@code work} in one transaction and commits. Every unit of work reads what it needs inside
   * its transaction, so one the database chose as a deadlock victim is simply run again.
   */
  <T> T inTransaction(String what, SqlWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        try {
          return transaction(work);
        } catch (InexactBatchCounts e) {
          if (exactBatchCounts) {
            exactBatchCounts = false;
            log.warn("Herald: the JDBC driver does not report an update count per batched row ({} {});"
                + " running optimistic updates one by one. For batched updates, turn off the driver's bulk or"
                + " rewritten batches (MariaDB Connector/J: useBulkStmts=false; MySQL Connector/J:"
                + " rewriteBatchedStatements=false)", dialect.name(), what);
          }
          return transaction(work);
        }
      } catch (CommitInDoubt e) {
        throw new StoreException("cannot tell whether " + what + " committed: " + e.getCause().getMessage(),
            e.getCause(), true);
      } catch (SQLException e) {
        if (attempt < DEADLOCK_ATTEMPTS && isDeadlockOrConflict(e)) {
          log.debug("Herald: {} rolled back by the database ({}); running it again", what, e.getMessage());
          java.util.concurrent.locks.LockSupport.parkNanos(attempt * 5_000_000L);
          continue;
        }
        throw new StoreException("cannot " + what + ": " + e.getMessage(), e);
      }
    }
  }

  /** SQLState 40001 (serialization failure; MySQL's and MariaDB's deadlock) or 40P01 (PostgreSQL's deadlock). */
  private static boolean isDeadlockOrConflict(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  /** A commit that was sent and not answered: it may have landed. */
  private static final class CommitInDoubt extends SQLException {
    CommitInDoubt(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause);
    }
  }

  /**
   * One transaction. What it throws says whether anything can have been written: a failure before
   * the commit rolls back (nothing written); a commit that fails is {@link CommitInDoubt}; a failure
   * after the commit answered (restoring auto-commit, returning the connection) is only logged, since
   * the work is known to be written.
   */
  private <T> T transaction(SqlWork<T> work) throws SQLException {
    Connection c = dataSource.getConnection();
    T result;
    boolean auto;
    try {
      auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        result = work.run(c);
      } catch (Throwable e) { // an Error must roll back too: restoring auto-commit below would commit
        // Restoring auto-commit commits what is open (JDBC), so only after a rollback that worked; a
        // connection whose rollback failed goes back as it is, and the pool rolls it back or drops it.
        if (rollbackQuietly(c, e)) {
          try {
            c.setAutoCommit(auto);
          } catch (SQLException suppressed) { // the connection is gone: report why the work failed, not that
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
      try {
        c.commit();
      } catch (SQLException e) {
        throw new CommitInDoubt(e);
      }
    } catch (Throwable e) {
      closeQuietly(c, e);
      throw e;
    }
    try (c) {
      c.setAutoCommit(auto);
    } catch (SQLException e) {
      log.debug("Herald: a connection failed after its commit ({}); the work is written", e.getMessage());
    }
    return result;
  }

  private static void closeQuietly(Connection c, Throwable cause) {
    try {
      c.close();
    } catch (SQLException | RuntimeException suppressed) {
      cause.addSuppressed(suppressed);
    }
  }

  /** Rolls back; false, with the reason added to {@code cause}, if that failed. */
  private static boolean rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
      return true;
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed);
      return false;
    }
  }
}
