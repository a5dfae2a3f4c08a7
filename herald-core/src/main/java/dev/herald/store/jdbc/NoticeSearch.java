package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.ATTEMPT_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.KEPT_ATTEMPT_AS_LOGGED;
import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.HISTORY_COLUMNS;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.InvalidInputException;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeScope;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Reads for operators and the API: one notice live or archived, its attempts, searches, finished notices. */
final class NoticeSearch extends StorePart {

  NoticeSearch(Dialect dialect, Transactions tx, NoticeRows rows) {
    super(dialect, tx, rows);
  }

  Optional<NoticeRow> find(UUID id) {
    return inTransaction("find notice " + id, c -> find(c, id, ""));
  }

  /** {@code read}: appended to both selects, e.g. {@link Dialect#readLatest()}. */
  Optional<NoticeRow> find(Connection c, UUID id, String read) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + LIVE_COLUMNS + " FROM herald_notice WHERE id = ?" + read)) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return Optional.of(readLive(rs));
        }
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + HISTORY_COLUMNS + " FROM herald_notice_history WHERE id = ?" + read)) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readHistory(rs)) : Optional.empty();
      }
    }
  }

  List<Attempt> attempts(UUID noticeId) {
    return inTransaction("read attempts of " + noticeId, c -> {
      List<Attempt> out = new ArrayList<>();
      // with the attempt a notice that finished at its first attempt keeps in its history row
      try (PreparedStatement ps = c.prepareStatement("SELECT " + ATTEMPT_COLUMNS + " FROM herald_attempt"
          + " WHERE notice_id = ? UNION ALL SELECT " + KEPT_ATTEMPT_AS_LOGGED + " FROM herald_notice_history"
          + " WHERE id = ? AND first_attempt_outcome IS NOT NULL ORDER BY number")) {
        dialect.setId(ps, 1, noticeId);
        dialect.setId(ps, 2, noticeId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readAttempt(rs));
          }
        }
      }
      return out;
    });
  }

  /** One page newest first (by creation, then id), with one row more looked for to tell whether another follows. */
  Page<Notice> search(NoticeCriteria criteria, int offset, int limit) {
    checkPage(offset, limit);
    List<Object> args = new ArrayList<>();
    String sql = union(criteria, offset, limit, true, args) + " LIMIT ? OFFSET ?";
    args.add(limit + 1);
    args.add(offset);
    return inTransaction("search notices", c -> {
      List<Notice> items = new ArrayList<>();
      try (PreparedStatement ps = prepared(c, sql, args); ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          items.add(readNotice(rs, true));
        }
      }
      boolean more = items.size() > limit;
      return new Page<>(more ? items.subList(0, limit) : items, offset, limit, more);
    });
  }

  /** The ids of the first {@code limit} notices {@link #search} lists. */
  List<UUID> searchIds(NoticeCriteria criteria, int limit) {
    checkPage(0, limit);
    List<Object> args = new ArrayList<>();
    String sql = union(criteria, 0, limit, false, args) + " LIMIT ?";
    args.add(limit);
    return ids("search notice ids", sql, args);
  }

  /**
   * Live and archived notices that match, newest first: each table gives at most the rows the page
   * can need, newest first (an index walk on created_at), so the union never sorts a whole table.
   */
  private static String union(NoticeCriteria q, int offset, int limit, boolean whole, List<Object> args) {
    Set<NoticeStatus> statuses = q.statuses().isEmpty() ? Set.of(NoticeStatus.values()) : q.statuses();
    List<NoticeStatus> live = statuses.stream().filter(s -> !s.isFinished()).sorted().toList();
    List<NoticeStatus> finished = statuses.stream().filter(NoticeStatus::isFinished).sorted().toList();
    List<String> parts = new ArrayList<>();
    // A literal, not a parameter: H2's query cache reuses the first LIMIT ? of a UNION branch when a
    // pooled connection runs the statement again, returning wrong pages.
    int branchLimit = (int) Math.min(Integer.MAX_VALUE, (long) offset + limit + 1);
    String newestFirst = " ORDER BY created_at DESC, id DESC";
    if (!live.isEmpty()) {
      String columns = whole ? LIVE_COLUMNS + ", NULL AS finished_at" : "id, created_at";
      parts.add("(SELECT " + columns + " FROM herald_notice n" + Conditions.where(q, live, 4, args) + newestFirst
          + " LIMIT " + branchLimit + ")");
    }
    if (!finished.isEmpty()) {
      String columns = whole ? "id, definition, payload, description, idempotency_key, status, attempts, retry_base,"
          + " fire_at, NULL AS due_at, last_attempt_at, last_error, created_at, updated_at, NULL AS owner,"
          + " 0 AS lease_until, version, shard, target, traceparent, finished_at" : "id, created_at";
      parts.add("(SELECT " + columns + " FROM herald_notice_history n" + Conditions.where(q, finished, 3, args)
          + newestFirst + " LIMIT " + branchLimit + ")");
    }
    return "SELECT * FROM (" + String.join(" UNION ALL ", parts) + ") found" + newestFirst;
  }

  private static void checkPage(int offset, int limit) {
    if (offset < 0) {
      throw new InvalidInputException("offset", "must be >= 0, was " + offset);
    }
    if (limit < 1) {
      throw new InvalidInputException("limit", "must be at least 1, was " + limit);
    }
  }

  private static PreparedStatement prepared(Connection c, String sql, List<Object> args) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    try {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }

  List<UUID> finishedIds(String definition, NoticeStatus status, Instant from, Instant to, NoticeScope scope,
      int limit) {
    List<Object> args = new ArrayList<>(List.of(status.name(), from.toEpochMilli(), to.toEpochMilli()));
    String sql = "SELECT n.id FROM herald_notice_history n WHERE n.status = ? AND n.finished_at >= ?"
        + " AND n.finished_at < ?" + Conditions.andDefinitionAndScope(definition, scope, args)
        + " ORDER BY n.finished_at LIMIT " + limit;
    return ids("find finished notice ids", sql, args);
  }

  /** The {@code id} column of every row the statement reads. */
  private List<UUID> ids(String what, String sql, List<Object> args) {
    return inTransaction(what, c -> {
      List<UUID> ids = new ArrayList<>();
      try (PreparedStatement ps = prepared(c, sql, args); ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(dialect.getId(rs, "id"));
        }
      }
      return ids;
    });
  }

  List<NoticeRow> findFinished(String definition, NoticeStatus status, Instant from, Instant to, int limit) {
    return inTransaction("find finished notices", c -> {
      List<NoticeRow> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT " + HISTORY_COLUMNS + " FROM herald_notice_history WHERE definition = ? AND status = ?"
              + " AND finished_at >= ? AND finished_at < ? ORDER BY finished_at LIMIT ?")) {
        ps.setString(1, definition);
        ps.setString(2, status.name());
        ps.setLong(3, from.toEpochMilli());
        ps.setLong(4, to.toEpochMilli());
        ps.setInt(5, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readHistory(rs));
          }
        }
      }
      return out;
    });
  }
}
