package dev.herald.store.jdbc;

import dev.herald.Attempt;
import dev.herald.PendingAlert;
import dev.herald.StoreException;
import dev.herald.spi.Change;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The alert outbox, {@code herald_alert}: alerts are inserted with the outcomes that raised them
 * (in {@link OutcomeWrites}' transaction), and taken out, locked, in the caller's transaction that
 * enqueues them as notices.
 */
final class AlertOutbox {
  private static final String INSERT = "INSERT INTO herald_alert (id, notice_id, definition, endpoint, failures,"
      + " final_failure, error, raised_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  private final Dialect dialect;

  AlertOutbox(Dialect dialect) {
    this.dialect = dialect;
  }

  /** Inserts the alerts of the changes that applied. */
  void insert(Connection c, List<Change> changes, boolean[] applied) throws SQLException {
    if (changes.stream().allMatch(ch -> ch.alert() == null)) {
      return; // the common case: no statement at all
    }
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (int i = 0; i < changes.size(); i++) {
        PendingAlert a = changes.get(i).alert();
        if (a == null || !applied[i]) {
          continue;
        }
        dialect.setId(ps, 1, a.id());
        dialect.setId(ps, 2, a.noticeId());
        ps.setString(3, a.definition());
        ps.setString(4, a.endpoint());
        ps.setInt(5, a.failures());
        ps.setBoolean(6, a.finalFailure());
        ps.setString(7, dialect.text(Attempt.bound(a.error())));
        ps.setLong(8, a.raisedAt().toEpochMilli());
        ps.addBatch();
        any = true;
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  /** The oldest waiting alerts, locked until the caller's transaction ends; rows locked by others are skipped. */
  List<PendingAlert> lock(Connection c, int max) {
    try (PreparedStatement ps = c.prepareStatement(dialect.lockAlerts())) {
      ps.setInt(1, max);
      List<PendingAlert> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new PendingAlert(dialect.getId(rs, "id"), dialect.getId(rs, "notice_id"), rs.getString("definition"),
              rs.getString("endpoint"), rs.getInt("failures"), rs.getBoolean("final_failure"), rs.getString("error"),
              Instant.ofEpochMilli(rs.getLong("raised_at"))));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("cannot read the alert outbox: " + e.getMessage(), e);
    }
  }

  /** Deletes the alerts; how many were still there (fewer means another transaction took some). */
  int delete(Connection c, Collection<PendingAlert> alerts) {
    if (alerts.isEmpty()) {
      return 0;
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_alert WHERE id = ?")) {
      for (PendingAlert a : alerts) {
        dialect.setId(ps, 1, a.id());
        ps.addBatch();
      }
      int deleted = 0;
      for (int n : ps.executeBatch()) {
        deleted += n == PreparedStatement.SUCCESS_NO_INFO ? 1 : n;
      }
      return deleted;
    } catch (SQLException e) {
      throw new StoreException("cannot delete from the alert outbox: " + e.getMessage(), e);
    }
  }
}
