package dev.herald.server.alerts;

import dev.herald.PendingAlert;
import dev.herald.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * {@code herald_server_alert_window}: per definition and endpoint that alerted, its window and what
 * it counted. Read and written in the caller's transaction, rows locked ({@code FOR UPDATE}) so that
 * servers sharing the database count each alert once.
 */
final class AlertWindows {
  private static final String COLUMNS = "definition, endpoint, opened_at, waiting, last_notice_id, last_failures,"
      + " last_final, last_error, last_at";
  /** The key of alerts without an endpoint (a primary key column holds no NULL). */
  static final String NO_ENDPOINT = "";

  /** One window; {@code last} is the latest alert it counted. */
  record Window(String definition, String endpoint, long openedAt, int waiting, PendingAlert last) {
    Key key() {
      return new Key(definition, endpoint);
    }
  }

  /** A definition and endpoint ({@link #NO_ENDPOINT} for none). */
  record Key(String definition, String endpoint) implements Comparable<Key> {
    static Key of(PendingAlert a) {
      return new Key(a.definition(), a.endpoint() == null ? NO_ENDPOINT : a.endpoint());
    }

    @Override
    public int compareTo(Key o) {
      int d = definition.compareTo(o.definition);
      return d != 0 ? d : endpoint.compareTo(o.endpoint);
    }
  }

  private AlertWindows() {}

  static Optional<Window> lock(Connection c, Key key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM herald_server_alert_window"
        + " WHERE definition = ? AND endpoint = ? FOR UPDATE")) {
      ps.setString(1, key.definition());
      ps.setString(2, key.endpoint());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** Windows that ended before {@code endedBy} with alerts counted and not sent, locked. */
  static List<Window> lockEnded(Connection c, long openedBefore) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM herald_server_alert_window"
        + " WHERE waiting > 0 AND opened_at <= ? ORDER BY definition, endpoint FOR UPDATE")) {
      ps.setLong(1, openedBefore);
      List<Window> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(read(rs));
        }
      }
      return out;
    }
  }

  static void insert(Connection c, Window w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_alert_window (" + COLUMNS
        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, w.definition());
      ps.setString(2, w.endpoint());
      bindRest(ps, w, 3);
      ps.executeUpdate();
    }
  }

  static void update(Connection c, Window w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE herald_server_alert_window SET opened_at = ?, waiting = ?,"
        + " last_notice_id = ?, last_failures = ?, last_final = ?, last_error = ?, last_at = ?"
        + " WHERE definition = ? AND endpoint = ?")) {
      bindRest(ps, w, 1);
      ps.setString(8, w.definition());
      ps.setString(9, w.endpoint());
      ps.executeUpdate();
    }
  }

  static void delete(Connection c, Key key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "DELETE FROM herald_server_alert_window WHERE definition = ? AND endpoint = ?")) {
      ps.setString(1, key.definition());
      ps.setString(2, key.endpoint());
      ps.executeUpdate();
    }
  }

  /** Every definition and endpoint with a window: those that alerted and have not delivered since. */
  static Set<Key> failing(DataSource db) {
    try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT definition, endpoint FROM herald_server_alert_window"); ResultSet rs = ps.executeQuery()) {
      Set<Key> out = new HashSet<>();
      while (rs.next()) {
        out.add(new Key(rs.getString(1), rs.getString(2)));
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("cannot read alert windows: " + e.getMessage(), e);
    }
  }

  private static void bindRest(PreparedStatement ps, Window w, int at) throws SQLException {
    PendingAlert last = w.last();
    ps.setLong(at, w.openedAt());
    ps.setInt(at + 1, w.waiting());
    ps.setString(at + 2, last.noticeId().toString());
    ps.setInt(at + 3, last.failures());
    ps.setBoolean(at + 4, last.finalFailure());
    String error = last.error();
    ps.setString(at + 5, error == null ? null : error.length() > 4000 ? error.substring(0, 4000) : error);
    ps.setLong(at + 6, last.raisedAt().toEpochMilli());
  }

  private static Window read(ResultSet rs) throws SQLException {
    String definition = rs.getString("definition");
    String endpoint = rs.getString("endpoint");
    PendingAlert last = new PendingAlert(null, java.util.UUID.fromString(rs.getString("last_notice_id")), definition,
        endpoint.isEmpty() ? null : endpoint, rs.getInt("last_failures"), rs.getBoolean("last_final"),
        rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("last_at")));
    return new Window(definition, endpoint, rs.getLong("opened_at"), rs.getInt("waiting"), last);
  }
}
