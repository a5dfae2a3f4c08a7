package dev.herald.server.console;

import dev.herald.NoticeStatus;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The console's notice search over live and archived notices, newest first: definition, status,
 * creation time range, idempotency key, and text in the description (case-insensitive). Plain SQL
 * every supported database runs; searching by id is a direct lookup, not done here.
 */
final class NoticeSearch {
  /** Most notices a bulk action touches at once. */
  static final int MAX_BULK = 10_000;

  /**
   * What to look for; every field optional.
   *
   * @param text part of the description
   */
  record Criteria(String definition, NoticeStatus status, Instant from, Instant to, String key, String text,
      String tenant) {
    Criteria {
      definition = blankToNull(definition);
      key = blankToNull(key);
      text = blankToNull(text);
    }

    Criteria(String definition, NoticeStatus status, Instant from, Instant to, String key, String text) {
      this(definition, status, from, to, key, text, null);
    }

    /** The same search within one tenant's notices (null: every tenant's). */
    Criteria within(String tenantId) {
      return new Criteria(definition, status, from, to, key, text, tenantId);
    }
  }

  /** One row of the results table. */
  record Row(UUID id, String definition, NoticeStatus status, int attempts, Instant fireAt, Instant createdAt,
      String description, String lastError) {
    /** The error's first line (e.g. {@code HTTP 500 Internal Server Error}); the list stays readable. */
    public String lastErrorLine() {
      return lastError == null ? "" : lastError.lines().findFirst().orElse("");
    }
  }

  private final DataSource dataSource;

  NoticeSearch(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** One page; {@code limit + 1} rows are read so the caller knows whether there is a next page. */
  List<Row> page(Criteria c, int offset, int limit) {
    return rows(c, offset, limit + 1);
  }

  /** The ids of every match, up to {@link #MAX_BULK} + 1 (so that "too many" can be told). */
  List<UUID> ids(Criteria c) {
    return rows(c, 0, MAX_BULK + 1).stream().map(Row::id).toList();
  }

  private List<Row> rows(Criteria c, int offset, int limit) {
    List<Object> params = new ArrayList<>();
    String live = select("herald_notice", c, params);
    String history = select("herald_notice_history", c, params);
    String sql = "SELECT * FROM (" + live + " UNION ALL " + history + ") found ORDER BY created_at DESC, id DESC"
        + " LIMIT ? OFFSET ?";
    params.add(limit);
    params.add(offset);
    try (Connection conn = dataSource.getConnection(); PreparedStatement ps = conn.prepareStatement(sql)) {
      for (int i = 0; i < params.size(); i++) {
        ps.setObject(i + 1, params.get(i));
      }
      List<Row> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Row(uuid(rs.getObject("id")), rs.getString("definition"),
              NoticeStatus.valueOf(rs.getString("status")), rs.getInt("attempts"),
              Instant.ofEpochMilli(rs.getLong("fire_at")), Instant.ofEpochMilli(rs.getLong("created_at")),
              rs.getString("description"), rs.getString("last_error")));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot search notices: " + e.getMessage(), e);
    }
  }

  private static String select(String table, Criteria c, List<Object> params) {
    StringBuilder sql = new StringBuilder("SELECT n.id, n.definition, n.status, n.attempts, n.fire_at, n.created_at,"
        + " n.description, n.last_error FROM " + table + " n WHERE 1 = 1");
    if (c.tenant() != null) {
      sql.append(" AND ").append(dev.herald.server.NoticeOwners.filter(c.tenant(), params));
    }
    if (c.definition() != null) {
      sql.append(" AND definition = ?");
      params.add(c.definition());
    }
    if (c.status() != null) {
      sql.append(" AND status = ?");
      params.add(c.status().name());
    }
    if (c.from() != null) {
      sql.append(" AND created_at >= ?");
      params.add(c.from().toEpochMilli());
    }
    if (c.to() != null) {
      sql.append(" AND created_at < ?");
      params.add(c.to().toEpochMilli());
    }
    if (c.key() != null) {
      // a key of a tenant other than the default is stored in the tenant's namespace
      sql.append(" AND (idempotency_key = ? OR idempotency_key = ?");
      params.add(c.key());
      params.add(c.tenant() == null ? c.key() : dev.herald.server.TenantKeys.stored(c.tenant(), c.key()));
      if (c.tenant() == null) {
        sql.append(" OR idempotency_key LIKE ? ESCAPE '!'");
        params.add(dev.herald.server.TenantKeys.anyTenant(c.key()));
      }
      sql.append(")");
    }
    if (c.text() != null) {
      sql.append(" AND LOWER(description) LIKE ? ESCAPE '!'");
      params.add("%" + c.text().toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
    }
    return sql.toString();
  }

  static UUID uuid(Object value) {
    if (value instanceof UUID u) {
      return u;
    }
    if (value instanceof byte[] b && b.length == 16) {
      ByteBuffer buf = ByteBuffer.wrap(b);
      return new UUID(buf.getLong(), buf.getLong());
    }
    return UUID.fromString(String.valueOf(value));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
