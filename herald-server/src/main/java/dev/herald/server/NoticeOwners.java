package dev.herald.server;

import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Which tenant each notice belongs to, in {@code herald_server_notice_tenant}: a row for every notice
 * of a tenant other than the default one, written in the notice's own transaction. A notice without
 * a row is the default tenant's, so a single-tenant install writes nothing here.
 */
public final class NoticeOwners {
  private static final int CHUNK = 500;

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;

  NoticeOwners(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = Dialect.detect(dataSource);
    this.clock = clock;
  }

  Dialect dialect() {
    return dialect;
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
            dialect.setId(ps, i + 1, chunk.get(i));
          }
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.put(dialect.getId(rs, "notice_id"), rs.getString("tenant"));
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
        dialect.setId(ps, 1, id);
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

  /**
   * A condition on a notice table's {@code id} column (aliased {@code n}) that keeps the notices of
   * {@code tenant}; its one parameter, if any, is added to {@code params}.
   */
  public static String filter(String tenant, List<Object> params) {
    if (tenant.equals(Tenants.DEFAULT)) {
      return "NOT EXISTS (SELECT 1 FROM herald_server_notice_tenant o WHERE o.notice_id = n.id)";
    }
    params.add(tenant);
    return "EXISTS (SELECT 1 FROM herald_server_notice_tenant o WHERE o.notice_id = n.id AND o.tenant = ?)";
  }

  /**
   * Rows whose notice no longer exists (purged from history) are deleted, those older than {@code
   * olderThanMillis} first found; returns how many.
   */
  int purgeOrphans(long olderThanMillis) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("DELETE FROM herald_server_notice_tenant WHERE created_at < ?"
            + " AND NOT EXISTS (SELECT 1 FROM herald_notice n WHERE n.id = herald_server_notice_tenant.notice_id)"
            + " AND NOT EXISTS (SELECT 1 FROM herald_notice_history h"
            + " WHERE h.id = herald_server_notice_tenant.notice_id)")) {
      ps.setLong(1, olderThanMillis);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot purge notice tenants: " + e.getMessage(), e);
    }
  }
}
