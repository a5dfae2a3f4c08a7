package dev.herald.events;

import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The SQL of event types (each call its own transaction but {@link #findType(Connection, String, String)}). */
final class EventTypeTable extends EventSql {
  EventTypeTable(DataSource dataSource, Dialect dialect) {
    super(dataSource, dialect);
  }

  EventType saveType(EventType t, Instant now) {
    return inTransaction("save event type " + t.name(), c -> {
      Instant created = now;
      try (PreparedStatement ps = c.prepareStatement("SELECT created_at FROM herald_event_type WHERE tenant = ? AND name = ?")) {
        ps.setString(1, t.tenant());
        ps.setString(2, t.name());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            created = Instant.ofEpochMilli(rs.getLong(1));
          }
        }
      }
      int updated;
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_event_type SET description = ?, json_schema = ?,"
          + " updated_at = ? WHERE tenant = ? AND name = ?")) {
        ps.setString(1, t.description());
        ps.setString(2, t.schema());
        ps.setLong(3, now.toEpochMilli());
        ps.setString(4, t.tenant());
        ps.setString(5, t.name());
        updated = ps.executeUpdate();
      }
      if (updated == 0) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_event_type (tenant, name, description,"
            + " json_schema, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")) {
          ps.setString(1, t.tenant());
          ps.setString(2, t.name());
          ps.setString(3, t.description());
          ps.setString(4, t.schema());
          ps.setLong(5, now.toEpochMilli());
          ps.setLong(6, now.toEpochMilli());
          ps.executeUpdate();
        }
      }
      return new EventType(t.tenant(), t.name(), t.description(), t.schema(), created, now);
    });
  }

  Optional<EventType> findType(String tenant, String name) {
    return inTransaction("find event type " + name, c -> findType(c, tenant, name));
  }

  /** On the caller's connection (a publish reads the type in its own transaction). */
  Optional<EventType> findType(Connection c, String tenant, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT tenant, name, description, json_schema, created_at,"
        + " updated_at FROM herald_event_type WHERE tenant = ? AND name = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readType(rs)) : Optional.empty();
      }
    }
  }

  List<EventType> listTypes(String tenant) {
    return inTransaction("list event types", c -> {
      List<EventType> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT tenant, name, description, json_schema, created_at,"
          + " updated_at FROM herald_event_type WHERE tenant = ? ORDER BY name")) {
        ps.setString(1, tenant);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readType(rs));
          }
        }
      }
      return out;
    });
  }

  boolean deleteType(String tenant, String name) {
    return inTransaction("delete event type " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "DELETE FROM herald_event_subscription WHERE tenant = ? AND event_type = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, name);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_event_type WHERE tenant = ? AND name = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, name);
        return ps.executeUpdate() > 0;
      }
    });
  }

  private static EventType readType(ResultSet rs) throws SQLException {
    return new EventType(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
        Instant.ofEpochMilli(rs.getLong(5)), Instant.ofEpochMilli(rs.getLong(6)));
  }

}
