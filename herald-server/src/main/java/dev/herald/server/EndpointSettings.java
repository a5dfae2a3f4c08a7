package dev.herald.server;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Endpoint settings that must survive a restart, in {@code herald_server_endpoint}: whether an
 * endpoint is disabled (and since when, why) and its own rate limit. The webhook channel holds them
 * in memory; this is where they are restored from at start.
 */
final class EndpointSettings {
  /** One endpoint's stored settings. */
  record Stored(String endpoint, Instant disabledAt, String disabledReason, String maxRate) {}

  private final DataSource dataSource;
  private final Clock clock;

  EndpointSettings(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  List<Stored> all() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT endpoint, disabled_at, disabled_reason, max_rate FROM herald_server_endpoint ORDER BY endpoint");
        ResultSet rs = ps.executeQuery()) {
      List<Stored> out = new ArrayList<>();
      while (rs.next()) {
        long at = rs.getLong(2);
        Instant disabledAt = rs.wasNull() ? null : Instant.ofEpochMilli(at);
        out.add(new Stored(rs.getString(1), disabledAt, rs.getString(3), rs.getString(4)));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read endpoint settings: " + e.getMessage(), e);
    }
  }

  void disabled(String endpoint, Instant at, String reason) {
    upsert(endpoint, "disabled_at = ?, disabled_reason = ?", ps -> {
      ps.setLong(1, at.toEpochMilli());
      ps.setString(2, reason.length() > 2000 ? reason.substring(0, 2000) : reason);
    }, 2);
  }

  void enabled(String endpoint) {
    upsert(endpoint, "disabled_at = ?, disabled_reason = ?", ps -> {
      ps.setNull(1, Types.BIGINT);
      ps.setNull(2, Types.VARCHAR);
    }, 2);
  }

  void maxRate(String endpoint, String rate) {
    upsert(endpoint, "max_rate = ?", ps -> ps.setString(1, rate), 1);
  }

  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  /** Updates the row; inserts an empty one first when there is none (and updates again if another node won the insert). */
  private void upsert(String endpoint, String set, Binder binder, int params) {
    try (Connection c = dataSource.getConnection()) {
      if (update(c, endpoint, set, binder, params) > 0) {
        return;
      }
      try (PreparedStatement ins =
          c.prepareStatement("INSERT INTO herald_server_endpoint (endpoint, updated_at) VALUES (?, ?)")) {
        ins.setString(1, endpoint);
        ins.setLong(2, clock.millis());
        ins.executeUpdate();
      } catch (SQLException raced) {
        // inserted by another node meanwhile: the update below applies
      }
      update(c, endpoint, set, binder, params);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot store the settings of endpoint " + endpoint + ": " + e.getMessage(), e);
    }
  }

  private int update(Connection c, String endpoint, String set, Binder binder, int params) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE herald_server_endpoint SET " + set + ", updated_at = ? WHERE endpoint = ?")) {
      binder.bind(ps);
      ps.setLong(params + 1, clock.millis());
      ps.setString(params + 2, endpoint);
      return ps.executeUpdate();
    }
  }
}
