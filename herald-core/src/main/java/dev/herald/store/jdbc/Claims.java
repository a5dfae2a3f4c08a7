package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS_OF_N;

import dev.herald.Notice;
import dev.herald.NoticeStatus;
import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Taking due notices: the claim in the dialect's {@link ClaimStrategy}, adopting what a node
 * enqueued under its provisional owner, and letting go of every lease at shutdown.
 */
final class Claims extends StorePart {

  private final OrderingStatements ordering;

  Claims(Dialect dialect, Transactions tx, NoticeRows rows, OrderingStatements ordering) {
    super(dialect, tx, rows);
    this.ordering = ordering;
  }

  List<NoticeRow> claim(Claim claim) {
    return inTransaction("claim due notices", c -> {
      beginReadCommitted(c);
      return switch (dialect.claimStrategy()) {
        case SELECT_THEN_UPDATE, LOCK_SKIP_LOCKED_THEN_UPDATE -> claimBySelectThenUpdate(c, claim);
        case UPDATE_SKIP_LOCKED_RETURNING -> claimByUpdateReturning(c, claim);
      };
    });
  }

  /** The claim statement of {@link ClaimStrategy#UPDATE_SKIP_LOCKED_RETURNING} for this claim's filter. */
  String claimByUpdateReturningSql(Claim claim) {
    // The locked ids as an array, not a join: joined, the planner hashed the whole live table on
    // every claim (a sequential scan per batch, the larger the backlog the longer); an array of ids
    // is looked up in the primary key. The rows stay locked until the commit, so no version can
    // change between the lock and the update.
    return "UPDATE herald_notice n SET status = ?, owner = ?, lease_until = ?, version = n.version + 1, updated_at = ?"
        + " WHERE n.id = ANY(ARRAY(" + dialect.claimSelect("id", claimFilter(claim, true)) + "))"
        + " AND n.lease_until < ?"
        + " RETURNING " + LIVE_COLUMNS_OF_N;
  }

  /** One statement locks (skipping rows other claimers hold), leases and returns the rows. */
  private List<NoticeRow> claimByUpdateReturning(Connection c, Claim claim) throws SQLException {
    List<NoticeRow> won = new ArrayList<>(claim.limit());
    try (PreparedStatement ps = c.prepareStatement(claimByUpdateReturningSql(claim))) {
      ps.setString(1, NoticeStatus.IN_FLIGHT.name());
      ps.setString(2, claim.owner());
      ps.setLong(3, claim.leaseUntil().toEpochMilli());
      ps.setLong(4, claim.now().toEpochMilli());
      int next = bindClaimFilter(ps, 5, claim);
      ps.setInt(next++, claim.limit());
      ps.setLong(next, claim.now().toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          won.add(readLive(rs));
        }
      }
    }
    won.sort(Comparator.comparing(r -> r.notice().nextAttemptAt())); // RETURNING has no order
    return won;
  }

  /**
   * The claim's candidate filter: due, free, and (for nodes with affinity) of their definitions and
   * shards. Parameters: horizon, now, then {@link #bindAffinity}.
   */
  static String claimFilter(Claim claim, boolean withOrdering) {
    StringBuilder where = new StringBuilder(
        "due_at <= ? AND lease_until < ? AND (owner IS NULL OR " + NodeStatements.OWNER_IS_DEAD + ")");
    if (withOrdering) {
      where.append(" AND ").append(OrderingStatements.CLAIMABLE);
    }
    if (!claim.definitions().isEmpty()) {
      where.append(" AND definition IN (").append(placeholders(claim.definitions().size())).append(')');
    }
    if (!claim.shards().isEmpty()) {
      where.append(" AND shard IN (").append(placeholders(claim.shards().size())).append(')');
    }
    return where.toString();
  }

  /** Binds the claim filter's parameters from {@code index}; returns the next free index. */
  static int bindClaimFilter(PreparedStatement ps, int index, Claim claim) throws SQLException {
    ps.setLong(index++, claim.horizon().toEpochMilli());
    ps.setLong(index++, claim.now().toEpochMilli());
    ps.setLong(index++, claim.aliveSince().toEpochMilli());
    for (String d : claim.definitions().stream().sorted().toList()) {
      ps.setString(index++, d);
    }
    for (int shard : claim.shards().stream().sorted().toList()) {
      ps.setInt(index++, shard);
    }
    return index;
  }

  private List<NoticeRow> claimBySelectThenUpdate(Connection c, Claim claim) throws SQLException {
    List<NoticeRow> candidates = new ArrayList<>(claim.limit());
    boolean locking = dialect.claimStrategy() == ClaimStrategy.LOCK_SKIP_LOCKED_THEN_UPDATE;
    try (PreparedStatement ps = c.prepareStatement(dialect.claimSelect(LIVE_COLUMNS, claimFilter(claim, !locking)))) {
      ps.setInt(bindClaimFilter(ps, 1, claim), claim.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(readLive(rs));
        }
      }
    }
    if (locking && !candidates.isEmpty()) {
      Set<UUID> held = ordering.heldBack(c, candidates.stream().map(NoticeRow::id).toList());
      candidates.removeIf(row -> held.contains(row.id()));
    }
    if (candidates.isEmpty()) {
      return candidates;
    }
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE herald_notice SET status = ?, owner = ?, lease_until = ?, version = ?, updated_at = ?"
            + " WHERE id = ? AND version = ? AND lease_until < ?")) {
      int[] counts = executeCounted(ps, candidates, (st, row) -> {
        st.setString(1, NoticeStatus.IN_FLIGHT.name());
        st.setString(2, claim.owner());
        st.setLong(3, claim.leaseUntil().toEpochMilli());
        st.setLong(4, row.version() + 1);
        st.setLong(5, claim.now().toEpochMilli());
        dialect.setId(st, 6, row.id());
        st.setLong(7, row.version()); // a row changed since the select (another claim, an outcome) is not free
        st.setLong(8, claim.now().toEpochMilli()); // nor one whose lease was renewed
      });
      List<NoticeRow> won = new ArrayList<>(candidates.size());
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 1) {
          won.add(leasedCopy(candidates.get(i), claim));
        }
      }
      return won;
    }
  }

  private static NoticeRow leasedCopy(NoticeRow row, Claim claim) {
    Notice n = row.notice();
    Notice leased = n.with().status(NoticeStatus.IN_FLIGHT).updatedAt(claim.now()).finishedAt(null).build();
    return row.next(leased, claim.owner(), claim.leaseUntil());
  }

  int countDue(Instant now, int cap) {
    return inTransaction("count due notices", c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT COUNT(*) FROM (SELECT 1 FROM herald_notice WHERE due_at <= ? LIMIT ?) due")) {
        ps.setLong(1, now.toEpochMilli());
        ps.setInt(2, cap);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    });
  }

  Set<UUID> adopt(String provisional, String owner, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return inTransaction("adopt committed notices", c -> {
      List<UUID> ordered = new ArrayList<>(new java.util.TreeSet<>(ids)); // one lock order for every writer
      Set<UUID> adopted = new HashSet<>();
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_notice SET owner = ?, version = version + 1"
          + " WHERE id = ? AND owner = ? AND status = 'IN_FLIGHT'")) {
        int[] counts = executeCounted(ps, ordered, (st, id) -> {
          st.setString(1, owner);
          dialect.setId(st, 2, id);
          st.setString(3, provisional);
        });
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] == 1) {
            adopted.add(ordered.get(i));
          }
        }
      }
      return adopted;
    });
  }

  List<NoticeRow> heldBy(Collection<String> owners, Instant dueBy, int limit) {
    if (owners.isEmpty() || limit <= 0) {
      return List.of();
    }
    List<String> sorted = owners.stream().sorted().toList();
    return inTransaction("read notices held by " + sorted, c -> {
      List<NoticeRow> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT " + LIVE_COLUMNS + " FROM herald_notice"
          + " WHERE due_at <= ? AND status = 'IN_FLIGHT' AND owner IN (" + placeholders(sorted.size()) + ")"
          + " ORDER BY due_at LIMIT ?")) {
        int i = 1;
        ps.setLong(i++, dueBy.toEpochMilli());
        for (String owner : sorted) {
          ps.setString(i++, owner);
        }
        ps.setInt(i, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readLive(rs));
          }
        }
      }
      return out;
    });
  }

  int releaseAll(String owner, Instant now) {
    return release(owner, now, null);
  }

  /** {@link #releaseAll} of the rows due by {@code dueBy}: a range of the claim's index, not a scan of the table. */
  int releaseHeld(String owner, Instant now, Instant dueBy) {
    return release(owner, now, dueBy);
  }

  private int release(String owner, Instant now, Instant dueBy) {
    return inTransaction("release leases of " + owner, c -> {
      beginReadCommitted(c);
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE herald_notice SET status = CASE WHEN attempts = retry_base THEN 'PENDING'"
              + " WHEN last_error IS NULL THEN 'AWAITING_CONFIRM' ELSE 'FAILED' END,"
              + " owner = NULL, lease_until = 0, version = version + 1, updated_at = ?"
              + " WHERE owner = ? AND status = 'IN_FLIGHT'" + (dueBy == null ? "" : " AND due_at <= ?"))) {
        ps.setLong(1, now.toEpochMilli());
        ps.setString(2, owner);
        if (dueBy != null) {
          ps.setLong(3, dueBy.toEpochMilli());
        }
        return ps.executeUpdate();
      }
    });
  }

}
