package dev.herald.server;

import dev.herald.NoticeReports;
import dev.herald.NoticeScope;
import dev.herald.jdbc.JdbcIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Which tenant each notice belongs to, in {@code herald_server_notice_tenant}: a row for every notice
 * of a tenant other than the default one, written in the notice's own transaction. A notice without
 * a row is the default tenant's, so a single-tenant install writes nothing here.
 */
public final class NoticeOwners {
  private static final int CHUNK = 500;
  private static final String TABLE = "herald_server_notice_tenant";

  private final DataSource dataSource;
  private final JdbcIds jdbcIds;
  private final Clock clock;

  NoticeOwners(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.jdbcIds = JdbcIds.of(dataSource);
    this.clock = clock;
  }

  /** The tenant of a notice (that exists or not): its row's, else the default tenant. */
  public String tenantOf(UUID id) {
    return tenantsOf(List.of(id)).getOrDefault(id, Tenants.DEFAULT);
  }

  /** The tenants of the notices that have a row; the others are the default tenant's. */
  public Map<UUID, String> tenantsOf(Collection<UUID> ids) {
    Map<UUID, String> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    List<UUID> all = List.copyOf(ids);
    try (Connection c = dataSource.getConnection()) {
      for (int from = 0; from < all.size(); from += CHUNK) {
        List<UUID> chunk = all.subList(from, Math.min(all.size(), from + CHUNK));
        try (PreparedStatement ps = c.prepareStatement("SELECT notice_id, tenant FROM herald_server_notice_tenant"
            + " WHERE notice_id IN (" + String.join(", ", chunk.stream().map(x -> "?").toList()) + ")")) {
          for (int i = 0; i < chunk.size(); i++) {
            jdbcIds.set(ps, i + 1, chunk.get(i));
          }
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.put(jdbcIds.get(rs, "notice_id"), rs.getString("tenant"));
            }
          }
        }
      }
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot read the tenants of notices: " + e.getMessage(), e);
    }
    return out;
  }

  /** Records, in the caller's transaction, that these new notices are {@code tenant}'s. */
  void write(Connection c, Collection<UUID> ids, String tenant) throws SQLException {
    if (ids.isEmpty() || tenant.equals(Tenants.DEFAULT)) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO herald_server_notice_tenant (notice_id, tenant, created_at) VALUES (?, ?, ?)")) {
      long now = clock.millis();
      for (UUID id : ids) {
        jdbcIds.set(ps, 1, id);
        ps.setString(2, tenant);
        ps.setLong(3, now);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** As {@link #write}, one notice: for notices the server creates itself (alerts). */
  public void writeOne(Connection c, UUID id, String tenant) throws SQLException {
    write(c, List.of(id), tenant);
  }

  /** The notices of {@code tenant}, for the core's searches, counts and charts. */
  public static NoticeScope scope(String tenant) {
    return tenant.equals(Tenants.DEFAULT) ? NoticeScope.unlabelled(TABLE, "notice_id", "tenant")
        : NoticeScope.labelled(TABLE, "notice_id", "tenant", tenant);
  }

  /**
   * Rows older than {@code olderThanMillis} whose notice no longer exists (purged from history) are
   * deleted; returns how many. Reads the rows in id order, a chunk at a time, and asks the core which
   * of their notices are still there.
   */
  int purgeOrphans(long olderThanMillis, NoticeReports reports) {
    int deleted = 0;
    UUID after = null;
    try (Connection c = dataSource.getConnection()) {
      while (true) {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT notice_id FROM " + TABLE + " WHERE created_at < ?"
            + (after == null ? "" : " AND notice_id > ?") + " ORDER BY notice_id LIMIT " + CHUNK)) {
          ps.setLong(1, olderThanMillis);
          if (after != null) {
            jdbcIds.set(ps, 2, after);
          }
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              ids.add(jdbcIds.get(rs, "notice_id"));
            }
          }
        }
        if (ids.isEmpty()) {
          return deleted;
        }
        after = ids.getLast();
        Set<UUID> existing = reports.existing(ids);
        List<UUID> orphans = ids.stream().filter(id -> !existing.contains(id)).toList();
        if (!orphans.isEmpty()) {
          try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE notice_id IN ("
              + String.join(", ", orphans.stream().map(x -> "?").toList()) + ")")) {
            for (int i = 0; i < orphans.size(); i++) {
              jdbcIds.set(ps, i + 1, orphans.get(i));
            }
            deleted += ps.executeUpdate();
          }
        }
      }
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot purge notice tenants: " + e.getMessage(), e);
    }
  }
}
