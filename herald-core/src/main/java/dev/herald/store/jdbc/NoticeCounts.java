package dev.herald.store.jdbc;

import dev.herald.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Counts of notices per definition, read from Herald's tables in two grouped statements (portable
 * SQL, every dialect): for gauges, health and the console, which ask at most every few seconds.
 *
 * <p><b>Backlog</b>, the one definition every part of Herald uses: live (unfinished) notices whose fire
 * time has passed. It holds what waits for a first attempt, for a retry, or for a receiver's
 * confirmation; a notice leaves it when it finishes (SUCCEEDED, DEAD, CANCELLED). Its <b>age</b> is how
 * long ago the oldest of them was due to fire.
 */
public final class NoticeCounts {
  /**
   * One definition's counts.
   *
   * @param due live notices whose next attempt (or confirm timeout) is due now: part of the backlog
   * @param awaitingConfirm delivered notices waiting for the receiver's confirmation
   * @param live notices not finished
   * @param dead DEAD notices in history
   * @param backlog live notices whose fire time has passed
   * @param oldestBacklogFireAt the earliest fire time in the backlog; null when it is empty
   */
  public record Counts(long due, long awaitingConfirm, long live, long dead, long backlog, Instant oldestBacklogFireAt) {
    static final Counts NONE = new Counts(0, 0, 0, 0, 0, null);

    /** How long ago the oldest notice of the backlog was due to fire; zero when the backlog is empty. */
    public Duration backlogAge(Instant now) {
      if (oldestBacklogFireAt == null || !now.isAfter(oldestBacklogFireAt)) {
        return Duration.ZERO;
      }
      return Duration.between(oldestBacklogFireAt, now);
    }
  }

  private final DataSource dataSource;

  public NoticeCounts(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The counts of all definitions together: backlog, its oldest fire time, and the rest summed. */
  public static Counts total(Collection<Counts> counts) {
    long due = 0;
    long awaiting = 0;
    long live = 0;
    long dead = 0;
    long backlog = 0;
    Instant oldest = null;
    for (Counts c : counts) {
      due += c.due();
      awaiting += c.awaitingConfirm();
      live += c.live();
      dead += c.dead();
      backlog += c.backlog();
      if (c.oldestBacklogFireAt() != null && (oldest == null || c.oldestBacklogFireAt().isBefore(oldest))) {
        oldest = c.oldestBacklogFireAt();
      }
    }
    return new Counts(due, awaiting, live, dead, backlog, oldest);
  }

  /** Per definition, as of {@code now}: see {@link Counts}. Definitions with no notice at all are absent. */
  public Map<String, Counts> byDefinition(Instant now) {
    Map<String, Counts> out = new HashMap<>();
    long at = now.toEpochMilli();
    try (Connection c = dataSource.getConnection()) {
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
            out.put(rs.getString(1), new Counts(rs.getLong(2), rs.getLong(3), rs.getLong(4), 0, rs.getLong(5),
                rs.wasNull() ? null : Instant.ofEpochMilli(oldest)));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
              "SELECT definition, COUNT(*) FROM herald_notice_history WHERE status = 'DEAD' GROUP BY definition");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Counts live = out.getOrDefault(rs.getString(1), Counts.NONE);
          out.put(rs.getString(1), new Counts(live.due(), live.awaitingConfirm(), live.live(), rs.getLong(2),
              live.backlog(), live.oldestBacklogFireAt()));
        }
      }
    } catch (SQLException e) {
      throw new StoreException("cannot count notices: " + e.getMessage(), e);
    }
    return out;
  }
}
