package dev.herald;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
import javax.sql.DataSource;

/** {@link Herald#inTransaction}: one transaction on a pooled connection, and the notices' after-commit step. */
final class TransactionRunner {
  private TransactionRunner() {}

  static <T> T run(DataSource dataSource, Function<Connection, NoticeTransaction> join, TransactionWork<T> work) {
    NoticeTransaction tx;
    T result;
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      tx = join.apply(c);
      // Restoring auto-commit commits what is open (JDBC): only once the transaction is settled. A
      // connection whose rollback failed goes back as it is, and the pool rolls it back or drops it.
      boolean settled = false;
      try {
        result = work.run(tx);
        c.commit();
        settled = true;
      } catch (Throwable e) { // an Error must roll back too: restoring auto-commit below would commit
        try {
          c.rollback();
          settled = true;
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        tx.afterRollback();
        if (e instanceof RuntimeException re) {
          throw re;
        }
        if (e instanceof Error err) {
          throw err;
        }
        throw new HeraldException("transaction failed: " + e.getMessage(), e);
      } finally {
        if (settled) {
          restoreAutoCommit(c, auto);
        }
      }
    } catch (SQLException e) {
      throw new StoreException("cannot run transaction: " + e.getMessage(), e);
    }
    // After the connection is back in the pool: the after-commit step borrows one of its own, and
    // holding two per caller would starve a small pool under concurrent enqueuers.
    tx.afterCommit();
    return result;
  }

  /** Restores auto-commit without letting a dead connection's error hide the one that matters. */
  private static void restoreAutoCommit(Connection c, boolean auto) {
    try {
      c.setAutoCommit(auto);
    } catch (SQLException e) {
      // The connection is broken; the pool discards it, and the transaction's own outcome stands.
      org.slf4j.LoggerFactory.getLogger(Herald.class).debug("cannot restore auto-commit: {}", e.getMessage());
    }
  }
}
