package dev.herald.server.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * The overview's series, read from the attempt log and the notice tables: deliveries, failures,
 * p99 lateness of first attempts, and backlog per time bucket, optionally for one definition. The
 * backlog is Herald's one definition of it ({@link dev.herald.store.jdbc.NoticeCounts}, as the gauge
 * {@code herald.notices.backlog} and the health component count it): notices past their fire time and
 * not finished at the bucket's end. The attempt log is kept as long as history is ({@code herald.history-retention}).
 */
final class Charts {
  /** A window of {@code buckets} buckets ending now. */
  enum Range {
    HOUR(Duration.ofHours(1), 60),
    DAY(Duration.ofDays(1), 96);

    final Duration length;
    final int buckets;

    Range(Duration length, int buckets) {
      this.length = length;
      this.buckets = buckets;
    }

    static Range parse(String s) {
      return "day".equalsIgnoreCase(s) ? DAY : HOUR;
    }
  }

  /** Series over one window: bucket start times (epoch ms) and a value per bucket. */
  record Series(long[] starts, long[] deliveries, long[] failures, double[] latenessP99Ms, long[] backlog) {
    long totalDeliveries() {
      return Arrays.stream(deliveries).sum();
    }

    long totalFailures() {
      return Arrays.stream(failures).sum();
    }
  }

  /** First attempts read for lateness; beyond this a window's p99 is computed from the newest ones. */
  static final int MAX_LATENESS_SAMPLES = 200_000;

  private final DataSource dataSource;

  Charts(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  Series series(Range range, String definition, Instant now) {
    return series(range, definition, null, now);
  }

  /** @param tenant only this tenant's notices; null for every tenant's */
  Series series(Range range, String definition, String tenant, Instant now) {
    long end = now.toEpochMilli();
    long start = end - range.length.toMillis();
    long width = range.length.toMillis() / range.buckets;
    int n = range.buckets;
    long[] starts = new long[n];
    for (int i = 0; i < n; i++) {
      starts[i] = start + i * width;
    }
    long[] deliveries = new long[n];
    long[] failures = new long[n];
    List<List<Long>> lateness = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lateness.add(new ArrayList<>());
    }
    long[] backlog = new long[n];
    String def = definition == null || definition.isBlank() ? null : definition;
    try (Connection c = dataSource.getConnection()) {
      for (String table : List.of("herald_notice", "herald_notice_history")) {
        List<Object> tenantArgs = new ArrayList<>();
        String sql = "SELECT a.started_at, a.outcome, a.number, n.fire_at FROM herald_attempt a JOIN " + table
            + " n ON n.id = a.notice_id WHERE a.started_at >= ? AND a.started_at < ?"
            + (def == null ? "" : " AND n.definition = ?")
            + (tenant == null ? "" : " AND " + dev.herald.server.NoticeOwners.filter(tenant, tenantArgs))
            + " ORDER BY a.started_at DESC";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setLong(1, start);
          ps.setLong(2, end);
          int p = 3;
          if (def != null) {
            ps.setString(p++, def);
          }
          for (Object a : tenantArgs) {
            ps.setObject(p++, a);
          }
          ps.setMaxRows(MAX_LATENESS_SAMPLES);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              int b = (int) Math.min(n - 1, (rs.getLong(1) - start) / width);
              String outcome = rs.getString(2);
              if (outcome.equals("DELIVERED") || outcome.equals("AWAIT_CONFIRM")) {
                deliveries[b]++;
              } else {
                failures[b]++;
              }
              if (rs.getInt(3) == 1) {
                lateness.get(b).add(Math.max(0, rs.getLong(1) - rs.getLong(4)));
              }
            }
          }
        }
      }
      backlog(c, def, tenant, starts, width, backlog);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the charts' data: " + e.getMessage(), e);
    }
    double[] p99 = new double[n];
    for (int i = 0; i < n; i++) {
      p99[i] = p99(lateness.get(i));
    }
    return new Series(starts, deliveries, failures, p99, backlog);
  }

  /** Notices past their fire time and not finished at the end of each bucket: one statement per table, a sum per bucket. */
  private static void backlog(Connection c, String def, String tenant, long[] starts, long width, long[] out)
      throws SQLException {
    for (boolean history : new boolean[] {false, true}) {
      StringBuilder sql = new StringBuilder("SELECT ");
      for (int i = 0; i < starts.length; i++) {
        sql.append(i == 0 ? "" : ", ").append("SUM(CASE WHEN fire_at <= ? AND created_at <= ?")
            .append(history ? " AND finished_at > ?" : "").append(" THEN 1 ELSE 0 END)");
      }
      sql.append(" FROM ").append(history ? "herald_notice_history n WHERE finished_at > ?"
          : "herald_notice n WHERE 1 = 1");
      if (def != null) {
        sql.append(" AND definition = ?");
      }
      List<Object> tenantArgs = new ArrayList<>();
      if (tenant != null) {
        sql.append(" AND ").append(dev.herald.server.NoticeOwners.filter(tenant, tenantArgs));
      }
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        int p = 1;
        for (long s : starts) {
          long t = s + width;
          ps.setLong(p++, t);
          ps.setLong(p++, t);
          if (history) {
            ps.setLong(p++, t);
          }
        }
        if (history) {
          ps.setLong(p++, starts[0]);
        }
        if (def != null) {
          ps.setString(p++, def);
        }
        for (Object a : tenantArgs) {
          ps.setObject(p++, a);
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          for (int i = 0; i < starts.length; i++) {
            out[i] += rs.getLong(i + 1);
          }
        }
      }
    }
  }

  static double p99(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
    int index = (int) Math.ceil(0.99 * v.length) - 1;
    return v[Math.max(0, index)];
  }
}
