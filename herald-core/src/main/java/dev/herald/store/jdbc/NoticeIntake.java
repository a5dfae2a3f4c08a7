package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.INSERT_LIVE;

import dev.herald.Notice;
import dev.herald.StoreException;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Enqueueing in the caller's transaction: the live row, and the idempotency key that makes a
 * second enqueue of the same key answer with the first notice instead.
 */
final class NoticeIntake extends StorePart {
  private final NoticeSearch search;

  NoticeIntake(Dialect dialect, Transactions tx, NoticeRows rows, NoticeSearch search) {
    super(dialect, tx, rows);
    this.search = search;
  }

  InsertResult insert(Connection c, NoticeRow row) {
    Notice n = row.notice();
    try {
      if (n.idempotencyKey() != null && !claimIdempotencyKey(c, n)) {
        return new InsertResult(holderOfKey(c, n), false);
      }
      try (PreparedStatement ps = c.prepareStatement(INSERT_LIVE)) {
        bindLive(ps, row);
        ps.executeUpdate();
      }
      return new InsertResult(row, true);
    } catch (SQLException e) {
      throw new StoreException("cannot enqueue notice of definition " + n.definition() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Records the key; false if it was already taken. The dialect's statement leaves the caller's
   * transaction usable either way (on PostgreSQL a failed statement would abort it).
   */
  private boolean claimIdempotencyKey(Connection c, Notice n) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.insertIdempotencyKey())) {
      ps.setString(1, n.definition());
      ps.setString(2, n.idempotencyKey());
      dialect.setId(ps, 3, n.id());
      ps.setLong(4, n.createdAt().toEpochMilli());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The notice holding the taken key, live or archived. First a plain read, which locks nothing and
   * sees a key committed before the caller's snapshot or taken by its own transaction. Under
   * REPEATABLE READ (MySQL's and MariaDB's default) the key may have been committed after the
   * snapshot began (this insert waited for it), so the snapshot has neither key nor notice: then the
   * dialect's locking read, which sees the latest committed rows. Not the first choice, because its
   * locks hold up the engine's writes of that notice until the caller commits.
   */
  private NoticeRow holderOfKey(Connection c, Notice n) throws SQLException {
    List<String> reads = dialect.readLatest().isEmpty() ? List.of("") : List.of("", dialect.readLatest());
    UUID id = null;
    for (String read : reads) {
      id = noticeOfKey(c, n.definition(), n.idempotencyKey(), read);
      Optional<NoticeRow> row = id == null ? Optional.empty() : search.find(c, id, read);
      if (row.isPresent()) {
        return row.get();
      }
    }
    throw new StoreException(id == null ? "idempotency key " + n.idempotencyKey() + " vanished while being read"
        : "idempotency key " + n.idempotencyKey() + " points at missing notice " + id, null);
  }

  private UUID noticeOfKey(Connection c, String definition, String key, String read) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT notice_id FROM herald_idempotency WHERE definition = ? AND idempotency_key = ?" + read)) {
      ps.setString(1, definition);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? dialect.getId(rs, "notice_id") : null;
      }
    }
  }
}
