package dev.herald.store.jdbc;

import dev.herald.AttemptSample;
import dev.herald.DeliveryResult;
import dev.herald.NoticeCounts;
import dev.herald.NoticeScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Counts and chart series for gauges, health and the console, which ask at most every few seconds:
 * grouped statements in portable SQL, the same on every dialect. The backlog is {@link
 * NoticeCounts}' one definition of it, counted now and at past instants alike.
 */
final class NoticeTallies extends StorePart {
  private static final int CHUNK = 500;

  NoticeTallies(Dialect dialect, Transactions tx, NoticeRows rows) {
    super(dialect, tx, rows);
  }

  Map<String, NoticeCounts> countByDefinition(Instant now) {
    long at = now.toEpochMilli();
    return inTransaction("count notices", c -> {
      Map<String, NoticeCounts> out = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT definition,"
          + " SUM(CASE WHEN due_at <= ? THEN 1 ELSE 0 END),"
          + " SUM(CASE WHEN status = 'AWAITING_CONFIRM' THEN 1 ELSE 0 END), COUNT(*),"
          + " SUM(CASE WHEN fire_at <= ? THEN 1 ELSE 0 END), MIN(CASE WHEN fire_at <= ? THEN fire_at END)"
          + " FROM herald_notice GROUP BY definition")) {
        ps.setLong(1, at);
        ps.setLong(2, at);
        ps.setLong(3, at);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long oldest = rs.getLong(6);
            out.put(rs.getString(1), new NoticeCounts(rs.getLong(2), rs.getLong(3), rs.getLong(4), 0, rs.getLong(5),
                rs.wasNull() ? null : Instant.ofEpochMilli(oldest)));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
              "SELECT definition, COUNT(*) FROM herald_notice_history WHERE status = 'DEAD' GROUP BY definition");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), out.getOrDefault(rs.getString(1), NoticeCounts.NONE).withDead(rs.getLong(2)));
        }
      }
      return out;
    });
  }

  long countDead(Instant since, int cap) {
    return inTransaction("count DEAD notices", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM (SELECT 1 FROM herald_notice_history"
          + " WHERE finished_at >= ? AND status = 'DEAD' LIMIT " + Math.max(0, cap) + ") dead")) {
        ps.setLong(1, since.toEpochMilli());
        return single(ps);
      }
    });
  }

  long countLive(NoticeScope scope) {
    List<Object> args = new ArrayList<>();
    String sql = "SELECT COUNT(*) FROM herald_notice n WHERE 1 = 1" + Conditions.andDefinitionAndScope(null, scope, args);
    return inTransaction("count live notices", c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        bind(ps, args, 1);
        return single(ps);
      }
    });
  }

  List<AttemptSample> attemptSamples(Instant from, Instant to, String definition, NoticeScope scope, int max) {
    return inTransaction("read attempts for charts", c -> {
      List<AttemptSample> out = new ArrayList<>();
      // The attempt log of live and of archived notices, and the attempts history rows keep (notices
      // finished at their first attempt): such a notice finished after its attempt started, so its
      // finish time bounds that search through its index.
      String logged = "SELECT a.started_at, a.outcome, a.number, n.fire_at FROM herald_attempt a JOIN %s n"
          + " ON n.id = a.notice_id WHERE a.started_at >= ? AND a.started_at < ?";
      String kept = "SELECT n.first_attempt_started_at, n.first_attempt_outcome, 1, n.fire_at FROM herald_notice_history n"
          + " WHERE n.finished_at >= ? AND n.first_attempt_started_at >= ? AND n.first_attempt_started_at < ?";
      for (String source : List.of(logged.formatted("herald_notice"), logged.formatted("herald_notice_history"), kept)) {
        List<Object> args = new ArrayList<>(source.equals(kept)
            ? List.of(from.toEpochMilli(), from.toEpochMilli(), to.toEpochMilli())
            : List.of(from.toEpochMilli(), to.toEpochMilli()));
        String sql = source + Conditions.andDefinitionAndScope(definition, scope, args) + " ORDER BY 1 DESC";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          bind(ps, args, 1);
          ps.setMaxRows(max);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(new AttemptSample(Instant.ofEpochMilli(rs.getLong(1)),
                  DeliveryResult.Outcome.valueOf(rs.getString(2)), rs.getInt(3), Instant.ofEpochMilli(rs.getLong(4))));
            }
          }
        }
      }
      out.sort((a, b) -> b.startedAt().compareTo(a.startedAt()));
      return out.size() > max ? new ArrayList<>(out.subList(0, max)) : out;
    });
  }

  /** One statement per table, a sum per instant. */
  long[] backlogAt(List<Instant> instants, String definition, NoticeScope scope) {
    long[] out = new long[instants.size()];
    if (instants.isEmpty()) {
      return out;
    }
    long earliest = instants.stream().mapToLong(Instant::toEpochMilli).min().orElseThrow();
    return inTransaction("count the backlog over time", c -> {
      for (boolean history : new boolean[] {false, true}) {
        StringBuilder sql = new StringBuilder("SELECT ");
        List<Object> args = new ArrayList<>();
        for (int i = 0; i < instants.size(); i++) {
          long t = instants.get(i).toEpochMilli();
          sql.append(i == 0 ? "" : ", ").append("SUM(CASE WHEN n.fire_at <= ? AND n.created_at <= ?")
              .append(history ? " AND n.finished_at > ?" : "").append(" THEN 1 ELSE 0 END)");
          args.add(t);
          args.add(t);
          if (history) {
            args.add(t);
          }
        }
        // only what finished after the earliest instant can count at any of them
        sql.append(history ? " FROM herald_notice_history n WHERE n.finished_at > ?" : " FROM herald_notice n WHERE 1 = 1");
        if (history) {
          args.add(earliest);
        }
        sql.append(Conditions.andDefinitionAndScope(definition, scope, args));
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
          bind(ps, args, 1);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            for (int i = 0; i < out.length; i++) {
              out[i] += rs.getLong(i + 1);
            }
          }
        }
      }
      return out;
    });
  }

  Set<UUID> existing(Collection<UUID> ids) {
    List<UUID> all = List.copyOf(ids);
    return inTransaction("find which notices exist", c -> {
      Set<UUID> out = new HashSet<>();
      for (int from = 0; from < all.size(); from += CHUNK) {
        List<UUID> chunk = all.subList(from, Math.min(all.size(), from + CHUNK));
        for (String table : List.of("herald_notice", "herald_notice_history")) {
          try (PreparedStatement ps = c.prepareStatement(
              "SELECT id FROM " + table + " WHERE id IN (" + placeholders(chunk.size()) + ")")) {
            for (int i = 0; i < chunk.size(); i++) {
              dialect.setId(ps, i + 1, chunk.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(dialect.getId(rs, "id"));
              }
            }
          }
        }
      }
      return out;
    });
  }

  private static void bind(PreparedStatement ps, List<Object> args, int first) throws SQLException {
    for (int i = 0; i < args.size(); i++) {
      ps.setObject(first + i, args.get(i));
    }
  }

  private static long single(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
