package dev.herald.server;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log, {@code herald_server_audit}: every operator and admin action (notices cancelled,
 * resent, edited, recovered, bulk actions; definitions, tokens, users, tenants and endpoints changed),
 * with who, when, what and from where, whether through the API or the console. Also written to the
 * logger {@code dev.herald.server.audit} at INFO.
 */
public final class AuditLog {
  private static final Logger log = LoggerFactory.getLogger("dev.herald.server.audit");

  /** One entry. */
  public record Entry(String id, Instant at, String actor, String tenant, String action, String target,
      String detail, String address) {}

  /**
   * A search; every criterion optional.
   *
   * @param text part of the actor, target or detail (case-insensitive)
   */
  public record Query(String tenant, String actor, String action, String text, Instant from, Instant to, int offset,
      int limit) {}

  private final DataSource dataSource;
  private final Clock clock;

  AuditLog(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /**
   * Records an action. An audit row that cannot be written is logged at WARN and does not undo the
   * action (which is done by then).
   *
   * @param tenant the tenant whose things were touched; null for server-wide changes
   */
  public void record(Caller who, String tenant, String action, String target, String detail) {
    Entry e = new Entry(UUID.randomUUID().toString(), clock.instant(), Views.bounded(who.actor(), 250), tenant, action,
        Views.bounded(target, 300), Views.bounded(detail, 4000), Views.bounded(who.address(), 100));
    log.info("{} by {} from {}: {} {}", action, e.actor(), e.address(), e.target() == null ? "" : e.target(),
        e.detail() == null ? "" : e.detail());
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_audit"
            + " (id, occurred_at, actor, tenant, action, target, detail, address) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, e.id());
      ps.setLong(2, e.at().toEpochMilli());
      ps.setString(3, e.actor());
      ps.setString(4, e.tenant());
      ps.setString(5, e.action());
      ps.setString(6, e.target());
      ps.setString(7, e.detail());
      ps.setString(8, e.address());
      ps.executeUpdate();
    } catch (SQLException ex) {
      log.warn("cannot write the audit row of {} by {}: {}", action, e.actor(), ex.getMessage());
    }
  }

  /** Entries, newest first; {@code limit + 1} are read so that the caller knows if there are more. */
  public List<Entry> search(Query q) {
    List<Object> args = new ArrayList<>();
    StringBuilder sql = new StringBuilder("SELECT id, occurred_at, actor, tenant, action, target, detail, address"
        + " FROM herald_server_audit WHERE 1 = 1");
    if (q.tenant() != null) {
      sql.append(" AND tenant = ?");
      args.add(q.tenant());
    }
    if (q.actor() != null) {
      sql.append(" AND actor = ?");
      args.add(q.actor());
    }
    if (q.action() != null) {
      sql.append(" AND action = ?");
      args.add(q.action());
    }
    if (q.from() != null) {
      sql.append(" AND occurred_at >= ?");
      args.add(q.from().toEpochMilli());
    }
    if (q.to() != null) {
      sql.append(" AND occurred_at < ?");
      args.add(q.to().toEpochMilli());
    }
    if (q.text() != null) {
      String like = "%" + q.text().toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%").replace("_", "!_")
          + "%";
      sql.append(" AND (LOWER(actor) LIKE ? ESCAPE '!' OR LOWER(target) LIKE ? ESCAPE '!'"
          + " OR LOWER(detail) LIKE ? ESCAPE '!')");
      args.add(like);
      args.add(like);
      args.add(like);
    }
    sql.append(" ORDER BY occurred_at DESC, id DESC LIMIT ").append(q.limit() + 1).append(" OFFSET ").append(q.offset());
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      List<Entry> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Entry(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3), rs.getString(4),
              rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot read the audit log: " + e.getMessage(), e);
    }
  }
}
