package dev.herald.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The SQL of node liveness ({@code herald_node}) and of the requests nodes leave each other
 * ({@code herald_revocation}, {@code herald_confirmation}). Each method runs inside a transaction
 * the store opened.
 */
final class NodeStatements {
  /** The claim's test that a notice's owner is dead: no heartbeat at or after the claim's {@code aliveSince}. */
  static final String OWNER_IS_DEAD = "NOT EXISTS (SELECT 1 FROM herald_node h"
      + " WHERE h.owner = herald_notice.owner AND h.heartbeat_at >= ?)";

  private final Dialect dialect;

  NodeStatements(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * Records incarnation {@code owner}. Idempotent: a registration whose answer was lost is simply
   * made again (an incarnation claims nothing before it knows it is registered, so replacing its row
   * cannot revive a claim).
   */
  void register(Connection c, String owner, String nodeId, Instant now) throws SQLException {
    forget(c, owner);
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO herald_node (owner, node_id, started_at, heartbeat_at) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, owner);
      ps.setString(2, nodeId);
      ps.setLong(3, now.toEpochMilli());
      ps.setLong(4, now.toEpochMilli());
      ps.executeUpdate();
    }
  }

  boolean heartbeat(Connection c, String owner, Instant now, Instant aliveSince) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE herald_node SET heartbeat_at = ? WHERE owner = ? AND heartbeat_at >= ?")) {
      ps.setLong(1, now.toEpochMilli());
      ps.setString(2, owner);
      ps.setLong(3, aliveSince.toEpochMilli());
      return ps.executeUpdate() == 1;
    }
  }

  boolean isAlive(Connection c, String owner, Instant aliveSince) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT 1 FROM herald_node WHERE owner = ? AND heartbeat_at >= ?")) {
      ps.setString(1, owner);
      ps.setLong(2, aliveSince.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  List<String> incarnations(Connection c, String nodeId) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM herald_node WHERE node_id = ?")) {
      ps.setString(1, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  void forget(Connection c, String owner) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_node WHERE owner = ?")) {
      ps.setString(1, owner);
      ps.executeUpdate();
    }
  }

  int forgetSilent(Connection c, Instant before) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_node WHERE heartbeat_at < ?")) {
      ps.setLong(1, before.toEpochMilli());
      return ps.executeUpdate();
    }
  }

  void requestRevocation(Connection c, UUID id, String owner, Instant now) throws SQLException {
    try (PreparedStatement del = c.prepareStatement("DELETE FROM herald_revocation WHERE notice_id = ?");
        PreparedStatement ins = c.prepareStatement(
            "INSERT INTO herald_revocation (notice_id, owner, requested_at) VALUES (?, ?, ?)")) {
      dialect.setId(del, 1, id);
      del.executeUpdate();
      dialect.setId(ins, 1, id);
      ins.setString(2, owner);
      ins.setLong(3, now.toEpochMilli());
      ins.executeUpdate();
    }
  }

  List<UUID> revocationsFor(Connection c, String owner) throws SQLException {
    List<UUID> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT notice_id FROM herald_revocation WHERE owner = ?")) {
      ps.setString(1, owner);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(dialect.getId(rs, "notice_id"));
        }
      }
    }
    return out;
  }

  void clearRevocations(Connection c, Collection<UUID> ids) throws SQLException {
    deleteByNotice(c, "herald_revocation", ids);
  }

  /**
   * Records a confirmation of notice {@code id} if it is IN_FLIGHT, after locking its row: an
   * outcome being written for it (which locks the row too) either committed before, and this sees
   * its status, or waits for this one and consumes the confirmation. False if not IN_FLIGHT.
   */
  boolean recordEarlyConfirmation(Connection c, UUID id, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT status FROM herald_notice WHERE id = ? FOR UPDATE")) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !"IN_FLIGHT".equals(rs.getString(1))) {
          return false;
        }
      }
    }
    try (PreparedStatement del = c.prepareStatement("DELETE FROM herald_confirmation WHERE notice_id = ?");
        PreparedStatement ins = c.prepareStatement(
            "INSERT INTO herald_confirmation (notice_id, confirmed_at) VALUES (?, ?)")) {
      dialect.setId(del, 1, id);
      del.executeUpdate();
      dialect.setId(ins, 1, id);
      ins.setLong(2, now.toEpochMilli());
      ins.executeUpdate();
    }
    return true;
  }

  /** Deletes the confirmations of {@code ids} in id order; returns the ids that had one. */
  Set<UUID> takeEarlyConfirmations(Connection c, Collection<UUID> ids) throws SQLException {
    Set<UUID> found = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_confirmation WHERE notice_id = ?")) {
      List<UUID> ordered = new ArrayList<>(new java.util.TreeSet<>(ids));
      for (UUID id : ordered) {
        dialect.setId(ps, 1, id);
        if (ps.executeUpdate() == 1) {
          found.add(id);
        }
      }
    }
    return found;
  }

  int purgeRequests(Connection c, Instant before) throws SQLException {
    int n = 0;
    for (String sql : List.of("DELETE FROM herald_revocation WHERE requested_at < ?",
        "DELETE FROM herald_confirmation WHERE confirmed_at < ?")) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setLong(1, before.toEpochMilli());
        n += ps.executeUpdate();
      }
    }
    return n;
  }

  private void deleteByNotice(Connection c, String table, Collection<UUID> ids) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE notice_id = ?")) {
      for (UUID id : new java.util.TreeSet<>(ids)) {
        dialect.setId(ps, 1, id);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
