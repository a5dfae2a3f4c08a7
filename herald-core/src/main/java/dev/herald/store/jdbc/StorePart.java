package dev.herald.store.jdbc;

import dev.herald.Notice;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * What every part of {@link JdbcNoticeStore} works with: the dialect, the transactions, and the
 * notice rows' binding and reading, under the short names the parts' SQL code reads best with.
 */
abstract class StorePart {
  protected final Dialect dialect;
  private final Transactions tx;
  private final NoticeRows rows;

  StorePart(Dialect dialect, Transactions tx, NoticeRows rows) {
    this.dialect = dialect;
    this.tx = tx;
    this.rows = rows;
  }

  protected final <T> T inTransaction(String what, Transactions.SqlWork<T> work) {
    return tx.inTransaction(what, work);
  }

  protected final <T> int[] executeCounted(PreparedStatement ps, List<T> items, Transactions.RowBinder<T> binder)
      throws SQLException {
    return tx.executeCounted(ps, items, binder);
  }

  protected final void beginReadCommitted(Connection c) throws SQLException {
    tx.beginReadCommitted(c);
  }

  protected final void bindLive(PreparedStatement ps, NoticeRow row) throws SQLException {
    rows.bindLive(ps, row);
  }

  protected final void bindLive(PreparedStatement ps, NoticeRow row, int at) throws SQLException {
    rows.bindLive(ps, row, at);
  }

  /** The rows' format, for a part that hands it on (COPY writes lines, not parameters). */
  protected final NoticeRows rows() {
    return rows;
  }

  protected final void bindHistory(PreparedStatement ps, NoticeRow row, dev.herald.Attempt firstAttempt)
      throws SQLException {
    rows.bindHistory(ps, row, firstAttempt);
  }

  protected final void bindAttempt(PreparedStatement ps, dev.herald.Attempt a) throws SQLException {
    rows.bindAttempt(ps, a);
  }

  protected final dev.herald.Attempt readAttempt(ResultSet rs) throws SQLException {
    return rows.readAttempt(rs);
  }

  protected final NoticeRow readLive(ResultSet rs) throws SQLException {
    return rows.readLive(rs);
  }

  protected final NoticeRow readHistory(ResultSet rs) throws SQLException {
    return rows.readHistory(rs);
  }

  protected final Notice readNotice(ResultSet rs, boolean hasFinished) throws SQLException {
    return rows.readNotice(rs, hasFinished);
  }

  protected static String placeholders(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }

  /** Marks as applied the items whose (exact) update count is 1. */
  protected static void markApplied(int[] counts, List<Integer> indexes, boolean[] applied) {
    for (int k = 0; k < counts.length; k++) {
      applied[indexes.get(k)] = counts[k] == 1;
    }
  }
}
