package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.NoticeTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins Herald to Spring-managed transactions on its data source.
 *
 * <p>The first notice of a transaction binds a {@link NoticeTransaction} on the transaction's own
 * connection ({@link DataSourceUtils#getConnection}) as a transaction resource and registers one
 * {@link TransactionSynchronization}: on commit it tells Herald to fire the notices from memory,
 * on rollback (or an unknown outcome) to forget them. The resource follows Spring's suspension, so a
 * {@code REQUIRES_NEW} transaction gets its own. A rollback to a savepoint ({@code NESTED}) is left to
 * the core, which re-reads which reserved notices really committed before firing them.
 */
final class SpringTransactionNotices {
  private static final Logger log = LoggerFactory.getLogger(SpringTransactionNotices.class);

  private final Herald herald;
  private final DataSource dataSource;
  private final Key key;

  /** The resource key: one per Herald, so two Heralds on one data source keep their notices apart. */
  private record Key(Herald herald) {}

  SpringTransactionNotices(Herald herald, DataSource dataSource) {
    this.herald = herald;
    this.dataSource = dataSource;
    this.key = new Key(herald);
  }

  /** Whether a Spring transaction is active on this thread, with synchronization to hear its end. */
  boolean inTransaction() {
    return TransactionSynchronizationManager.isActualTransactionActive()
        && TransactionSynchronizationManager.isSynchronizationActive();
  }

  List<Notice> enqueueAll(List<NoticeRequest> requests) {
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      return joined(connection).enqueueAll(requests);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  /**
   * Whether the transaction the notices just published on this thread joined is still open: until it
   * ends, they exist only in it.
   */
  java.util.function.BooleanSupplier uncommitted() {
    Bound bound = (Bound) TransactionSynchronizationManager.getResource(key);
    return bound == null ? () -> false : () -> !bound.completed;
  }

  private NoticeTransaction joined(Connection connection) {
    Bound bound = (Bound) TransactionSynchronizationManager.getResource(key);
    if (bound != null && bound.connection == connection) {
      return bound.tx;
    }
    if (bound != null) {
      throw new HeraldException("the current transaction's connection changed after a notice was published in it;"
          + " Herald needs one connection per transaction");
    }
    if (autoCommit(connection)) {
      throw new HeraldException("a Spring transaction is active, but not on Herald's DataSource: a notice"
          + " written now would commit on its own. Run the transaction on the DataSource Herald uses (the"
          + " application's DataSource bean), or publish outside the transaction.");
    }
    Bound fresh = new Bound(herald.join(connection), connection);
    TransactionSynchronizationManager.bindResource(key, fresh);
    TransactionSynchronizationManager.registerSynchronization(fresh);
    return fresh.tx;
  }

  private static boolean autoCommit(Connection c) {
    try {
      return c.getAutoCommit();
    } catch (SQLException e) {
      throw new HeraldException("cannot read the transaction's connection: " + e.getMessage(), e);
    }
  }

  /** The notices of one Spring transaction, and the synchronization that ends them. */
  private final class Bound implements TransactionSynchronization {
    final NoticeTransaction tx;
    final Connection connection;
    volatile boolean completed;

    Bound(NoticeTransaction tx, Connection connection) {
      this.tx = tx;
      this.connection = connection;
    }

    @Override
    public void suspend() {
      TransactionSynchronizationManager.unbindResourceIfPossible(key);
    }

    @Override
    public void resume() {
      TransactionSynchronizationManager.bindResource(key, this);
    }

    @Override
    public void afterCommit() {
      try {
        tx.afterCommit();
      } catch (RuntimeException e) {
        // The business transaction committed; never fail it now. The notices are stored and
        // provisionally held: the poll delivers them once that hold (the node timeout) ends.
        log.warn("Herald could not fire the notices of a committed transaction from memory; they will be"
            + " delivered by the poll: {}", e.toString());
      }
    }

    @Override
    public void afterCompletion(int status) {
      completed = true;
      TransactionSynchronizationManager.unbindResourceIfPossible(key);
      if (status != STATUS_COMMITTED) {
        tx.afterRollback();
      }
    }
  }
}
