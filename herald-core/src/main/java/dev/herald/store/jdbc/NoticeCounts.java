package dev.herald.store.jdbc;

import dev.herald.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Counts of notices per definition, read from Herald's tables in two grouped statements (portable
 * SQL, every dialect): for gauges and the console, which ask at most every few seconds.
 */
public final class NoticeCounts {
  /** One definition's counts. */
  public record Counts(long due, long awaitingConfirm, long live, long dead) {
    static final Counts NONE = new Counts(0, 0, 0, 0);
  }

  private final DataSource dataSource;

  public NoticeCounts(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Per definition: live notices due by {@code now} (delivery or confirm timeout), awaiting
   * confirmation, live in all, and DEAD in history.
   */
  public Map<String, Counts> byDefinition(Instant now) {
    Map<String, Counts> out = new HashMap<>();
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT definition,"
          + " SUM(CASE WHEN due_at <= ? THEN 1 ELSE 0 END),"
          + " SUM(CASE WHEN status = 'AWAITING_CONFIRM' THEN 1 ELSE 0 END), COUNT(*)"
          + " FROM herald_notice GROUP BY definition")) {
        ps.setLong(1, now.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), new Counts(rs.getLong(2), rs.getLong(3), rs.getLong(4), 0));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
              "SELECT definition, COUNT(*) FROM herald_notice_history WHERE status = 'DEAD' GROUP BY definition");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Counts live = out.getOrDefault(rs.getString(1), Counts.NONE);
          out.put(rs.getString(1), new Counts(live.due(), live.awaitingConfirm(), live.live(), rs.getLong(2)));
        }
      }
    } catch (SQLException e) {
      throw new StoreException("cannot count notices: " + e.getMessage(), e);
    }
    return out;
  }
}
