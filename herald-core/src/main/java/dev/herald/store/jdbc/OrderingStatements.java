package dev.herald.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The SQL of ordered delivery. Each ordering key has a counter row ({@code herald_ordering_key}) that
 * numbers its notices; each ordered notice has a line entry ({@code herald_ordered}) with its number.
 * Incrementing the counter locks the key's row until the enqueuing transaction ends, so notices of
 * one key commit in the order of their numbers and no notice can slip in before one already
 * delivered. The claim takes an ordered notice only as the head of its line ({@link #CLAIMABLE}).
 */
final class OrderingStatements {
  /**
   * Whether line entry {@code o} is held back: another notice of its key is live and earlier, or
   * live and held by a node (claimed, in flight), or earlier and DEAD while its definition holds a
   * line on a DEAD head.
   */
  private static final String HELD_BACK = "EXISTS (SELECT 1 FROM herald_ordered e"
      + " WHERE e.ordering_key = o.ordering_key AND e.notice_id <> o.notice_id AND ("
      + "EXISTS (SELECT 1 FROM herald_notice p WHERE p.id = e.notice_id AND (e.seq < o.seq OR p.owner IS NOT NULL))"
      + " OR (e.seq < o.seq AND e.hold_on_dead = TRUE AND EXISTS (SELECT 1 FROM herald_notice_history d"
      + " WHERE d.id = e.notice_id AND d.status = 'DEAD'))))";

  /**
   * The claim's test that a notice is not held back by its line. Unordered notices have no entry and
   * always pass. Only for claims whose subqueries read the same snapshot as the rows they filter:
   * see {@link #heldBack}.
   */
  static final String CLAIMABLE = "NOT EXISTS (SELECT 1 FROM herald_ordered o"
      + " WHERE o.notice_id = herald_notice.id AND " + HELD_BACK + ")";

  private final Dialect dialect;

  OrderingStatements(Dialect dialect) {
    this.dialect = dialect;
  }

  /** Numbers the notice in its key's line and enters it there, in the caller's transaction. */
  void enter(Connection c, UUID noticeId, String key, boolean holdOnDead) throws SQLException {
    long seq = nextNumber(c, key);
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO herald_ordered (notice_id, ordering_key, seq, hold_on_dead) VALUES (?, ?, ?, ?)")) {
      dialect.setId(ps, 1, noticeId);
      ps.setString(2, key);
      ps.setLong(3, seq);
      ps.setBoolean(4, holdOnDead);
      ps.executeUpdate();
    }
  }

  private long nextNumber(Connection c, String key) throws SQLException {
    String upsert = dialect.upsertOrderingKey();
    if (upsert != null) {
      try (PreparedStatement ps = c.prepareStatement(upsert)) {
        ps.setString(1, key);
        ps.executeUpdate();
      }
    } else if (increment(c, key) == 0) {
      if (insertFirst(c, key)) {
        return 1;
      }
      if (increment(c, key) == 0) { // a concurrent first enqueue of the key rolled back: start the line
        if (!insertFirst(c, key)) {
          throw new SQLException("ordering key " + key + " could not be numbered");
        }
        return 1;
      }
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT last_seq FROM herald_ordering_key WHERE ordering_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static int increment(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE herald_ordering_key SET last_seq = last_seq + 1 WHERE ordering_key = ?")) {
      ps.setString(1, key);
      return ps.executeUpdate();
    }
  }

  /** Creates the key's counter at 1; false if a concurrent transaction created it first. */
  private boolean insertFirst(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.insertOrderingKey())) {
      ps.setString(1, key);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Of the candidates a locking claim returned, those held back by their line. InnoDB's locking read
   * returns the latest committed rows while its subqueries read the snapshot the statement began with,
   * so a notice committed meanwhile would pass {@link #CLAIMABLE} without its entry being seen; this
   * separate read, after the locking one, sees every entry of every candidate.
   */
  java.util.Set<UUID> heldBack(Connection c, List<UUID> candidates) throws SQLException {
    java.util.Set<UUID> held = new java.util.HashSet<>();
    if (candidates.isEmpty()) {
      return held;
    }
    String in = String.join(", ", java.util.Collections.nCopies(candidates.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT o.notice_id FROM herald_ordered o WHERE o.notice_id IN (" + in + ") AND " + HELD_BACK)) {
      for (int i = 0; i < candidates.size(); i++) {
        dialect.setId(ps, i + 1, candidates.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          held.add(dialect.getId(rs, "notice_id"));
        }
      }
    }
    return held;
  }

  /**
   * Forgets the line entries of purged notices, then the counters of keys left without entries. A
   * counter is deleted only if no enqueue numbered a notice since it was read (its {@code last_seq}
   * is unchanged), so a line never restarts below a number still in use.
   */
  void purge(Connection c, Collection<UUID> purgedIds) throws SQLException {
    if (purgedIds.isEmpty()) {
      return;
    }
    TreeSet<String> keys = new TreeSet<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT ordering_key FROM herald_ordered WHERE notice_id = ?")) {
      for (UUID id : purgedIds) {
        dialect.setId(ps, 1, id);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            keys.add(rs.getString(1));
          }
        }
      }
    }
    if (keys.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_ordered WHERE notice_id = ?")) {
      for (UUID id : purgedIds) {
        dialect.setId(ps, 1, id);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    record Counter(String key, long lastSeq) {}
    List<Counter> idle = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT k.last_seq FROM herald_ordering_key k WHERE"
        + " k.ordering_key = ? AND NOT EXISTS (SELECT 1 FROM herald_ordered o WHERE o.ordering_key = k.ordering_key)")) {
      for (String key : keys) {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            idle.add(new Counter(key, rs.getLong(1)));
          }
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(
        "DELETE FROM herald_ordering_key WHERE ordering_key = ? AND last_seq = ?")) {
      for (Counter k : idle) {
        ps.setString(1, k.key());
        ps.setLong(2, k.lastSeq());
        ps.executeUpdate();
      }
    }
  }
}
