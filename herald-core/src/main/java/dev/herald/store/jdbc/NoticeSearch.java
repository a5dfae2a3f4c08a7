package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.HISTORY_COLUMNS;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Reads for operators and the API: one notice live or archived, its attempts, pages of notices, finished notices. */
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
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT notice_id, number, started_at, duration_ms, outcome, detail, node FROM herald_attempt"
              + " WHERE notice_id = ? ORDER BY number")) {
        dialect.setId(ps, 1, noticeId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new Attempt(
                dialect.getId(rs, "notice_id"),
                rs.getInt("number"),
                Instant.ofEpochMilli(rs.getLong("started_at")),
                Duration.ofMillis(rs.getLong("duration_ms")),
                DeliveryResult.Outcome.valueOf(rs.getString("outcome")),
                rs.getString("detail"),
                rs.getString("node")));
          }
        }
      }
      return out;
    });
  }

  Page<Notice> query(NoticeQuery q) {
    Set<NoticeStatus> statuses = q.statuses().isEmpty() ? Set.of(NoticeStatus.values()) : q.statuses();
    boolean live = statuses.stream().anyMatch(s -> !s.isFinished());
    boolean history = statuses.stream().anyMatch(NoticeStatus::isFinished);
    List<Object> args = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    // Each table gives at most the rows the page can need, newest first (an index walk on
    // created_at), so the union never sorts a whole table.
    // A literal, not a parameter: H2's query cache reuses the first LIMIT ? of a UNION branch when a
    // pooled connection runs the statement again, returning wrong pages.
    int branchLimit = (int) Math.min(Integer.MAX_VALUE, (long) q.offset() + q.limit() + 1);
    String newestFirst = " ORDER BY created_at DESC, id DESC";
    if (live) {
      parts.add("(SELECT " + LIVE_COLUMNS + ", NULL AS finished_at FROM herald_notice"
          + where(q, statuses.stream().filter(s -> !s.isFinished()).toList(), args) + newestFirst
          + " LIMIT " + branchLimit + ")");
    }
    if (history) {
      parts.add("(SELECT id, definition, payload, description, idempotency_key, status, attempts, retry_base,"
          + " fire_at, NULL AS due_at, last_attempt_at, last_error, created_at, updated_at, NULL AS owner,"
          + " 0 AS lease_until, version, shard, target, traceparent, finished_at FROM herald_notice_history"
          + where(q, statuses.stream().filter(NoticeStatus::isFinished).toList(), args) + newestFirst
          + " LIMIT " + branchLimit + ")");
    }
    String sql = "SELECT * FROM (" + String.join(" UNION ALL ", parts) + ") n"
        + newestFirst + " LIMIT ? OFFSET ?";
    args.add(q.limit() + 1);
    args.add(q.offset());
    return inTransaction("query notices", c -> {
      List<Notice> items = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < args.size(); i++) {
          ps.setObject(i + 1, args.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            items.add(readNotice(rs, true));
          }
        }
      }
      boolean more = items.size() > q.limit();
      return new Page<>(more ? items.subList(0, q.limit()) : items, q.offset(), q.limit(), more);
    });
  }

  private static String where(NoticeQuery q, List<NoticeStatus> statuses, List<Object> args) {
    List<String> terms = new ArrayList<>();
    if (q.definition() != null) {
      terms.add("definition = ?");
      args.add(q.definition());
    }
    if (statuses.size() < (statuses.getFirst().isFinished() ? 3 : 4)) {
      terms.add("status IN (" + String.join(", ", statuses.stream().map(s -> "?").toList()) + ")");
      statuses.forEach(s -> args.add(s.name()));
    }
    if (q.createdFrom() != null) {
      terms.add("created_at >= ?");
      args.add(q.createdFrom().toEpochMilli());
    }
    if (q.createdTo() != null) {
      terms.add("created_at < ?");
      args.add(q.createdTo().toEpochMilli());
    }
    return terms.isEmpty() ? "" : " WHERE " + String.join(" AND ", terms);
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
