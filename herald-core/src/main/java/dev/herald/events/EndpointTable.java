package dev.herald.events;

import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * The SQL of endpoints and their subscriptions (each call its own transaction), and what a publish
 * reads of them on the publisher's connection.
 */
final class EndpointTable extends EventSql {
  EndpointTable(DataSource dataSource, Dialect dialect) {
    super(dataSource, dialect);
  }

  /** An endpoint as a publish reads it: where its notices go and what it lets through. */
  record Subscriber(String id, String definition, String filter, long updatedAt) {}

  /** An endpoint row without its definition. */
  record EndpointRow(String tenant, String id, String definition, String description, boolean enabled, String filter,
      Set<String> eventTypes, Instant createdAt, Instant updatedAt) {}

  /** Creates or replaces the endpoint's row and subscriptions; returns its creation time. */
  Instant saveEndpoint(EventEndpoint e, Instant now) {
    return inTransaction("save endpoint " + e.id(), c -> {
      Instant created = now;
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT created_at FROM herald_event_endpoint WHERE tenant = ? AND id = ?")) {
        ps.setString(1, e.tenant());
        ps.setString(2, e.id());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            created = Instant.ofEpochMilli(rs.getLong(1));
          }
        }
      }
      int updated;
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_event_endpoint SET definition = ?, description = ?,"
          + " enabled = ?, payload_filter = ?, updated_at = ? WHERE tenant = ? AND id = ?")) {
        ps.setString(1, e.delivery().name());
        ps.setString(2, e.description());
        ps.setBoolean(3, e.enabled());
        ps.setString(4, e.filter());
        ps.setLong(5, now.toEpochMilli());
        ps.setString(6, e.tenant());
        ps.setString(7, e.id());
        updated = ps.executeUpdate();
      }
      if (updated == 0) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_event_endpoint (tenant, id, definition,"
            + " description, enabled, payload_filter, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
          ps.setString(1, e.tenant());
          ps.setString(2, e.id());
          ps.setString(3, e.delivery().name());
          ps.setString(4, e.description());
          ps.setBoolean(5, e.enabled());
          ps.setString(6, e.filter());
          ps.setLong(7, now.toEpochMilli());
          ps.setLong(8, now.toEpochMilli());
          ps.executeUpdate();
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
          "DELETE FROM herald_event_subscription WHERE tenant = ? AND endpoint_id = ?")) {
        ps.setString(1, e.tenant());
        ps.setString(2, e.id());
        ps.executeUpdate();
      }
      if (!e.eventTypes().isEmpty()) {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO herald_event_subscription (tenant, event_type, endpoint_id) VALUES (?, ?, ?)")) {
          for (String type : e.eventTypes()) {
            ps.setString(1, e.tenant());
            ps.setString(2, type);
            ps.setString(3, e.id());
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      return created;
    });
  }

  Optional<EndpointRow> findEndpoint(String tenant, String id) {
    List<EndpointRow> rows = endpoints(tenant, id);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.getFirst());
  }

  /** The tenant's endpoints by id, or the one named {@code id} when it is not null. */
  List<EndpointRow> endpoints(String tenant, String id) {
    return inTransaction("read endpoints", c -> {
      Map<String, Set<String>> types = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT endpoint_id, event_type FROM herald_event_subscription"
          + " WHERE tenant = ?" + (id == null ? "" : " AND endpoint_id = ?"))) {
        ps.setString(1, tenant);
        if (id != null) {
          ps.setString(2, id);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            types.computeIfAbsent(rs.getString(1), k -> new TreeSet<>()).add(rs.getString(2));
          }
        }
      }
      List<EndpointRow> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT tenant, id, definition, description, enabled,"
          + " payload_filter, created_at, updated_at FROM herald_event_endpoint WHERE tenant = ?"
          + (id == null ? "" : " AND id = ?") + " ORDER BY id")) {
        ps.setString(1, tenant);
        if (id != null) {
          ps.setString(2, id);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new EndpointRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getBoolean(5), rs.getString(6), types.getOrDefault(rs.getString(2), Set.of()),
                Instant.ofEpochMilli(rs.getLong(7)), Instant.ofEpochMilli(rs.getLong(8))));
          }
        }
      }
      return out;
    });
  }

  boolean deleteEndpoint(String tenant, String id) {
    return inTransaction("delete endpoint " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "DELETE FROM herald_event_subscription WHERE tenant = ? AND endpoint_id = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, id);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_event_endpoint WHERE tenant = ? AND id = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, id);
        return ps.executeUpdate() > 0;
      }
    });
  }

  /** An event type and the enabled endpoints subscribed to it (or to every type), read in one statement. */
  record TypeAndSubscribers(EventType type, List<Subscriber> subscribers) {}

  /**
   * The type and its enabled subscribers, in id order, on the publisher's connection; empty if the
   * type does not exist. One round trip: a publish is on the caller's transaction's critical path.
   */
  Optional<TypeAndSubscribers> typeAndSubscribers(Connection c, String tenant, String type) throws SQLException {
    EventType found = null;
    Map<String, Subscriber> subscribers = new java.util.TreeMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT t.description, t.json_schema, t.created_at, t.updated_at,"
        + " e.id, e.definition, e.payload_filter, e.updated_at FROM herald_event_type t"
        + " LEFT JOIN herald_event_subscription s ON s.tenant = t.tenant AND s.event_type IN (t.name, ?)"
        + " LEFT JOIN herald_event_endpoint e ON e.tenant = s.tenant AND e.id = s.endpoint_id AND e.enabled = TRUE"
        + " WHERE t.tenant = ? AND t.name = ?")) {
      ps.setString(1, EventEndpoint.ALL_TYPES);
      ps.setString(2, tenant);
      ps.setString(3, type);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (found == null) {
            found = new EventType(tenant, type, rs.getString(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3)),
                Instant.ofEpochMilli(rs.getLong(4)));
          }
          String id = rs.getString(5);
          if (id != null) {
            subscribers.put(id, new Subscriber(id, rs.getString(6), rs.getString(7), rs.getLong(8)));
          }
        }
      }
    }
    return found == null ? Optional.empty()
        : Optional.of(new TypeAndSubscribers(found, List.copyOf(subscribers.values())));
  }
}
