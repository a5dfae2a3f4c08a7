package dev.herald.server;

import dev.herald.Notice;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The notice search of the API and DEAD-notice recovery narrowed to one tenant: the core's search
 * (live and archived notices, newest first) with the tenant's condition added to both tables.
 */
final class TenantNotices {
  private static final String COLUMNS = "n.id, n.definition, n.payload, n.description, n.idempotency_key, n.status,"
      + " n.attempts, n.fire_at, n.last_attempt_at, n.last_error, n.created_at, n.updated_at, n.target, n.traceparent";

  private final DataSource dataSource;
  private final NoticeOwners owners;

  TenantNotices(DataSource dataSource, NoticeOwners owners) {
    this.dataSource = dataSource;
    this.owners = owners;
  }

  Page<Notice> query(NoticeQuery q, String tenant) {
    Set<NoticeStatus> statuses = q.statuses().isEmpty() ? Set.of(NoticeStatus.values()) : q.statuses();
    List<Object> args = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    // A literal LIMIT in each branch (as the core does): H2's query cache reuses a parameter's first value there.
    int branchLimit = (int) Math.min(Integer.MAX_VALUE, (long) q.offset() + q.limit() + 1);
    String newestFirst = " ORDER BY created_at DESC, id DESC";
    List<NoticeStatus> live = statuses.stream().filter(s -> !s.isFinished()).toList();
    List<NoticeStatus> finished = statuses.stream().filter(NoticeStatus::isFinished).toList();
    if (!live.isEmpty()) {
      parts.add("(SELECT " + COLUMNS + ", n.due_at, NULL AS finished_at FROM herald_notice n"
          + where(q, live, tenant, args) + " ORDER BY n.created_at DESC, n.id DESC LIMIT " + branchLimit + ")");
    }
    if (!finished.isEmpty()) {
      parts.add("(SELECT " + COLUMNS + ", NULL AS due_at, n.finished_at FROM herald_notice_history n"
          + where(q, finished, tenant, args) + " ORDER BY n.created_at DESC, n.id DESC LIMIT " + branchLimit + ")");
    }
    String sql = "SELECT * FROM (" + String.join(" UNION ALL ", parts) + ") found" + newestFirst + " LIMIT ? OFFSET ?";
    args.add(q.limit() + 1);
    args.add(q.offset());
    List<Notice> items = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          items.add(read(rs));
        }
      }
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot search notices: " + e.getMessage(), e);
    }
    boolean more = items.size() > q.limit();
    return new Page<>(more ? items.subList(0, q.limit()) : items, q.offset(), q.limit(), more);
  }

  private static String where(NoticeQuery q, List<NoticeStatus> statuses, String tenant, List<Object> args) {
    List<String> terms = new ArrayList<>();
    if (q.definition() != null) {
      terms.add("n.definition = ?");
      args.add(q.definition());
    }
    terms.add("n.status IN (" + String.join(", ", statuses.stream().map(s -> "?").toList()) + ")");
    statuses.forEach(s -> args.add(s.name()));
    if (q.createdFrom() != null) {
      terms.add("n.created_at >= ?");
      args.add(q.createdFrom().toEpochMilli());
    }
    if (q.createdTo() != null) {
      terms.add("n.created_at < ?");
      args.add(q.createdTo().toEpochMilli());
    }
    terms.add(NoticeOwners.filter(tenant, args));
    return " WHERE " + String.join(" AND ", terms);
  }

  /** The ids of the tenant's DEAD notices of a definition that died in [from, to), oldest first, at most {@code limit}. */
  List<UUID> dead(String definition, Instant from, Instant to, String tenant, int limit) {
    List<Object> args = new ArrayList<>(List.of(definition, from.toEpochMilli(), to.toEpochMilli()));
    String sql = "SELECT n.id FROM herald_notice_history n WHERE n.definition = ? AND n.status = 'DEAD'"
        + " AND n.finished_at >= ? AND n.finished_at < ? AND " + NoticeOwners.filter(tenant, args)
        + " ORDER BY n.finished_at LIMIT " + limit;
    List<UUID> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(owners.dialect().getId(rs, "id"));
        }
      }
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot find DEAD notices: " + e.getMessage(), e);
    }
    return out;
  }

  private Notice read(ResultSet rs) throws SQLException {
    NoticeStatus status = NoticeStatus.valueOf(rs.getString("status"));
    return new Notice(owners.dialect().getId(rs, "id"), rs.getString("definition"), rs.getString("payload"),
        rs.getString("description"), rs.getString("idempotency_key"), status, rs.getInt("attempts"),
        instant(rs, "fire_at"), status.isFinished() ? null : instant(rs, "due_at"), instant(rs, "last_attempt_at"),
        rs.getString("last_error"), instant(rs, "created_at"), instant(rs, "updated_at"),
        status.isFinished() ? instant(rs, "finished_at") : null, rs.getString("target"), rs.getString("traceparent"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }
}
