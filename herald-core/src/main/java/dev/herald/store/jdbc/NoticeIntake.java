package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.INSERT_LIVE;
import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMN_COUNT;
import static dev.herald.store.jdbc.NoticeRows.LIVE_VALUES;

import dev.herald.Notice;
import dev.herald.StoreException;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
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

  /** Rows per multi-row insert: 100 × 19 parameters, far within every database's limit. */
  private static final int ROWS_PER_INSERT = 100;

  /**
   * Each row as {@link #insert} would write it, in fewer statements: a row with an idempotency key
   * goes alone (in order, so a key repeated in the list answers with the first row), the rest as
   * multi-row inserts of {@value #ROWS_PER_INSERT}, sent as one JDBC batch.
   */
  List<InsertResult> insertAll(Connection c, List<NoticeRow> rows) {
    InsertResult[] out = new InsertResult[rows.size()];
    List<NoticeRow> plain = new ArrayList<>(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      NoticeRow row = rows.get(i);
      if (row.notice().idempotencyKey() != null) {
        out[i] = insert(c, row);
      } else {
        plain.add(row);
        out[i] = new InsertResult(row, true);
      }
    }
    try {
      insertPlain(c, plain);
    } catch (SQLException e) {
      String definitions = String.join(", ", plain.stream().map(r -> r.notice().definition()).distinct().toList());
      throw new StoreException("cannot enqueue " + plain.size() + " notice(s) of definition(s) " + definitions + ": "
          + e.getMessage(), e);
    }
    return Arrays.asList(out);
  }

  /** From this many rows on, a dialect that copies bulk inserts uses COPY: two round trips, so not for a few. */
  private static final int COPY_FROM = 10;

  private void insertPlain(Connection c, List<NoticeRow> rows) throws SQLException {
    if (rows.size() >= COPY_FROM && dialect.copiesBulkInserts() && PgCopyIn.usable(c)) {
      PgCopyIn.insert(c, rows(), rows);
      return;
    }
    int full = rows.size() / ROWS_PER_INSERT;
    int rest = rows.size() % ROWS_PER_INSERT;
    if (full > 0) {
      try (PreparedStatement ps = c.prepareStatement(multiRowInsert(ROWS_PER_INSERT))) {
        for (int k = 0; k < full; k++) {
          bindRows(ps, rows.subList(k * ROWS_PER_INSERT, (k + 1) * ROWS_PER_INSERT));
          if (full > 1) {
            ps.addBatch();
          }
        }
        if (full > 1) {
          ps.executeBatch();
        } else {
          ps.executeUpdate();
        }
      }
    }
    if (rest > 0) {
      try (PreparedStatement ps = c.prepareStatement(multiRowInsert(rest))) {
        bindRows(ps, rows.subList(full * ROWS_PER_INSERT, rows.size()));
        ps.executeUpdate();
      }
    }
  }

  private void bindRows(PreparedStatement ps, List<NoticeRow> rows) throws SQLException {
    for (int r = 0; r < rows.size(); r++) {
      bindLive(ps, rows.get(r), r * LIVE_COLUMN_COUNT);
    }
  }

  private static String multiRowInsert(int rows) {
    return rows == 1 ? INSERT_LIVE : "INSERT INTO herald_notice (" + LIVE_COLUMNS + ") VALUES "
        + String.join(", ", java.util.Collections.nCopies(rows, LIVE_VALUES));
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
