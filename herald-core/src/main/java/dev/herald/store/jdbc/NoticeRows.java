package dev.herald.store.jdbc;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeStatus;
import dev.herald.spi.NoticeRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;

/** The notice tables' columns, and how a {@link NoticeRow} is bound to a statement and read back from a row. */
final class NoticeRows {
  static final String LIVE_COLUMNS =
      "id, definition, payload, description, idempotency_key, status, attempts, retry_base, fire_at, due_at,"
          + " last_attempt_at, last_error, created_at, updated_at, owner, lease_until, version, shard, target,"
          + " traceparent";
  static final String LIVE_COLUMNS_OF_N =
      String.join(", ", java.util.Arrays.stream(LIVE_COLUMNS.split(",")).map(col -> "n." + col.strip()).toList());
  static final String HISTORY_COLUMNS =
      "id, definition, payload, description, idempotency_key, status, attempts, retry_base, fire_at,"
          + " last_attempt_at, last_error, created_at, updated_at, finished_at, version, shard, target, traceparent";
  /** The live columns' placeholders, one row's worth. */
  static final String LIVE_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  static final int LIVE_COLUMN_COUNT = 20;
  static final String INSERT_LIVE =
      "INSERT INTO herald_notice (" + LIVE_COLUMNS + ") VALUES " + LIVE_VALUES;
  /**
   * A notice that finished at its first attempt keeps that attempt in its history row (V14/V15), not
   * in {@code herald_attempt}: these columns, in {@link Attempt}'s order after the notice id and number.
   */
  static final String FIRST_ATTEMPT_COLUMNS =
      "first_attempt_started_at, first_attempt_ms, first_attempt_outcome, first_attempt_detail, first_attempt_node";
  /** The attempt log's columns, as {@link #readAttempt} reads them. */
  static final String ATTEMPT_COLUMNS = "notice_id, number, started_at, duration_ms, outcome, detail, node";
  /** A history row's kept attempt under {@link #ATTEMPT_COLUMNS}' names (for rows that keep one). */
  static final String KEPT_ATTEMPT_AS_LOGGED = "id AS notice_id, 1 AS number, first_attempt_started_at AS started_at,"
      + " first_attempt_ms AS duration_ms, first_attempt_outcome AS outcome, first_attempt_detail AS detail,"
      + " first_attempt_node AS node";
  static final String INSERT_ATTEMPT =
      "INSERT INTO herald_attempt (" + ATTEMPT_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)";
  static final String INSERT_HISTORY =
      "INSERT INTO herald_notice_history (" + HISTORY_COLUMNS + ", " + FIRST_ATTEMPT_COLUMNS + ")"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  static final String DELETE_LIVE = "DELETE FROM herald_notice WHERE id = ? AND version = ?";
  static final String DELETE_HISTORY = "DELETE FROM herald_notice_history WHERE id = ? AND version = ?";

  private final Dialect dialect;

  NoticeRows(Dialect dialect) {
    this.dialect = dialect;
  }

  void bindLive(PreparedStatement ps, NoticeRow row) throws SQLException {
    bindLive(ps, row, 0);
  }

  /** Binds the live row's 20 columns at parameters {@code at + 1} to {@code at + 20} (one row of a multi-row insert). */
  void bindLive(PreparedStatement ps, NoticeRow row, int at) throws SQLException {
    Notice n = row.notice();
    dialect.setId(ps, at + 1, n.id());
    ps.setString(at + 2, n.definition());
    ps.setString(at + 3, n.payload());
    ps.setString(at + 4, dialect.text(n.description()));
    ps.setString(at + 5, n.idempotencyKey());
    ps.setString(at + 6, n.status().name());
    ps.setInt(at + 7, n.attempts());
    ps.setInt(at + 8, row.retryBase());
    ps.setLong(at + 9, n.fireAt().toEpochMilli());
    ps.setLong(at + 10, n.nextAttemptAt().toEpochMilli());
    setLong(ps, at + 11, millis(n.lastAttemptAt()));
    ps.setString(at + 12, dialect.text(Attempt.bound(n.lastError())));
    ps.setLong(at + 13, n.createdAt().toEpochMilli());
    ps.setLong(at + 14, n.updatedAt().toEpochMilli());
    ps.setString(at + 15, row.owner());
    ps.setLong(at + 16, row.leaseUntil().toEpochMilli());
    ps.setLong(at + 17, row.version());
    ps.setInt(at + 18, row.shard());
    ps.setString(at + 19, n.target());
    ps.setString(at + 20, n.traceparent());
  }

  /**
   * Appends the live row's columns ({@link #LIVE_COLUMNS}, in order) as one line of PostgreSQL's
   * {@code COPY} text format: the same values {@link #bindLive} binds.
   */
  void appendCopyLine(StringBuilder sb, NoticeRow row) {
    Notice n = row.notice();
    sb.append(n.id()).append('\t');
    copyText(sb, n.definition()).append('\t');
    copyText(sb, n.payload()).append('\t');
    copyText(sb, dialect.text(n.description())).append('\t');
    copyText(sb, n.idempotencyKey()).append('\t');
    sb.append(n.status().name()).append('\t');
    sb.append(n.attempts()).append('\t');
    sb.append(row.retryBase()).append('\t');
    sb.append(n.fireAt().toEpochMilli()).append('\t');
    sb.append(n.nextAttemptAt().toEpochMilli()).append('\t');
    Long last = millis(n.lastAttemptAt());
    (last == null ? sb.append("\\N") : sb.append(last.longValue())).append('\t');
    copyText(sb, dialect.text(Attempt.bound(n.lastError()))).append('\t');
    sb.append(n.createdAt().toEpochMilli()).append('\t');
    sb.append(n.updatedAt().toEpochMilli()).append('\t');
    copyText(sb, row.owner()).append('\t');
    sb.append(row.leaseUntil().toEpochMilli()).append('\t');
    sb.append(row.version()).append('\t');
    sb.append(row.shard()).append('\t');
    copyText(sb, n.target()).append('\t');
    copyText(sb, n.traceparent()).append('\n');
  }

  /** A text value in COPY's text format: NULL is {@code \N}; backslash, newline, return and tab escaped. */
  static StringBuilder copyText(StringBuilder sb, String v) {
    if (v == null) {
      return sb.append("\\N");
    }
    for (int i = 0; i < v.length(); i++) {
      char ch = v.charAt(i);
      switch (ch) {
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> sb.append(ch);
      }
    }
    return sb;
  }

  /** Binds {@link #INSERT_HISTORY}: the row, and the attempt it keeps ({@code firstAttempt}, or null). */
  void bindHistory(PreparedStatement ps, NoticeRow row, Attempt firstAttempt) throws SQLException {
    bindHistory(ps, row);
    if (firstAttempt == null) {
      ps.setNull(19, Types.BIGINT);
      ps.setNull(20, Types.BIGINT);
      ps.setNull(21, Types.VARCHAR);
      ps.setNull(22, Types.VARCHAR);
      ps.setNull(23, Types.VARCHAR);
    } else {
      bindAttemptFields(ps, 19, firstAttempt);
    }
  }

  /** Binds {@link #INSERT_ATTEMPT}. */
  void bindAttempt(PreparedStatement ps, Attempt a) throws SQLException {
    dialect.setId(ps, 1, a.noticeId());
    ps.setInt(2, a.number());
    bindAttemptFields(ps, 3, a);
  }

  /** An attempt's start, duration, outcome, detail and node, from parameter {@code at}. */
  private void bindAttemptFields(PreparedStatement ps, int at, Attempt a) throws SQLException {
    ps.setLong(at, a.startedAt().toEpochMilli());
    ps.setLong(at + 1, a.duration().toMillis());
    ps.setString(at + 2, a.outcome().name());
    ps.setString(at + 3, dialect.text(Attempt.bound(a.detail())));
    ps.setString(at + 4, a.node());
  }

  /** An attempt from a row with {@link #ATTEMPT_COLUMNS}. */
  Attempt readAttempt(ResultSet rs) throws SQLException {
    return new Attempt(dialect.getId(rs, "notice_id"), rs.getInt("number"),
        Instant.ofEpochMilli(rs.getLong("started_at")), Duration.ofMillis(rs.getLong("duration_ms")),
        DeliveryResult.Outcome.valueOf(rs.getString("outcome")), rs.getString("detail"), rs.getString("node"));
  }

  private void bindHistory(PreparedStatement ps, NoticeRow row) throws SQLException {
    Notice n = row.notice();
    dialect.setId(ps, 1, n.id());
    ps.setString(2, n.definition());
    ps.setString(3, n.payload());
    ps.setString(4, dialect.text(n.description()));
    ps.setString(5, n.idempotencyKey());
    ps.setString(6, n.status().name());
    ps.setInt(7, n.attempts());
    ps.setInt(8, row.retryBase());
    ps.setLong(9, n.fireAt().toEpochMilli());
    setLong(ps, 10, millis(n.lastAttemptAt()));
    ps.setString(11, dialect.text(Attempt.bound(n.lastError())));
    ps.setLong(12, n.createdAt().toEpochMilli());
    ps.setLong(13, n.updatedAt().toEpochMilli());
    ps.setLong(14, n.finishedAt().toEpochMilli());
    ps.setLong(15, row.version());
    ps.setInt(16, row.shard());
    ps.setString(17, n.target());
    ps.setString(18, n.traceparent());
  }

  NoticeRow readLive(ResultSet rs) throws SQLException {
    String owner = rs.getString("owner");
    return new NoticeRow(readNotice(rs, false), owner, Instant.ofEpochMilli(rs.getLong("lease_until")),
        rs.getLong("version"), rs.getInt("retry_base"), rs.getInt("shard"));
  }

  NoticeRow readHistory(ResultSet rs) throws SQLException {
    return new NoticeRow(readNotice(rs, true), null, Instant.EPOCH, rs.getLong("version"), rs.getInt("retry_base"),
        rs.getInt("shard"));
  }

  /** Reads the public view; {@code union} marks a row that may carry both due_at and finished_at. */
  Notice readNotice(ResultSet rs, boolean hasFinished) throws SQLException {
    NoticeStatus status = NoticeStatus.valueOf(rs.getString("status"));
    Instant due = status.isFinished() ? null : instant(rs, "due_at");
    Instant finished = hasFinished && status.isFinished() ? instant(rs, "finished_at") : null;
    return new Notice(
        dialect.getId(rs, "id"),
        rs.getString("definition"),
        rs.getString("payload"),
        rs.getString("description"),
        rs.getString("idempotency_key"),
        status,
        rs.getInt("attempts"),
        instant(rs, "fire_at"),
        due,
        instant(rs, "last_attempt_at"),
        rs.getString("last_error"),
        instant(rs, "created_at"),
        instant(rs, "updated_at"),
        finished,
        rs.getString("target"),
        rs.getString("traceparent"));
  }

  static Instant instant(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  static Long millis(Instant t) {
    return t == null ? null : t.toEpochMilli();
  }

  static void setLong(PreparedStatement ps, int index, Long value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, value);
    }
  }
}
