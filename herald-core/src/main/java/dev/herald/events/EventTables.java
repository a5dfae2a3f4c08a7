package dev.herald.events;

import dev.herald.NoticeStatus;
import dev.herald.store.jdbc.Dialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The SQL of events: what a publish writes on the publisher's connection (the event, its deliveries),
 * the reads of events and deliveries, and their upkeep.
 */
final class EventTables extends EventSql {
  EventTables(DataSource dataSource, Dialect dialect) {
    super(dataSource, dialect);
  }

  /**
   * Writes the event; false, writing nothing, when its idempotency key is taken. The statement leaves
   * the caller's transaction usable either way (on PostgreSQL a failed statement would abort it).
   */
  boolean insertEvent(Connection c, Event e) throws SQLException {
    String insert = "INSERT INTO herald_event (id, tenant, event_type, payload, idempotency_key, created_at, endpoints,"
        + " expunged) VALUES (?, ?, ?, ?, ?, ?, ?, FALSE)";
    if (e.idempotencyKey() != null) {
      insert = switch (dialect.name()) {
        case "postgresql" -> insert + " ON CONFLICT (tenant, idempotency_key) DO NOTHING";
        case "mysql" -> insert.replaceFirst("^INSERT INTO", "INSERT IGNORE INTO");
        default -> insert;
      };
    }
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      dialect.setId(ps, 1, e.id());
      ps.setString(2, e.tenant());
      ps.setString(3, e.type());
      ps.setString(4, dialect.text(e.payload()));
      ps.setString(5, e.idempotencyKey());
      ps.setLong(6, e.createdAt().toEpochMilli());
      ps.setInt(7, e.endpoints());
      return ps.executeUpdate() == 1;
    } catch (SQLException ex) {
      if (e.idempotencyKey() != null && dialect.isDuplicateKey(ex)) {
        return false;
      }
      throw ex;
    }
  }

  /** The event holding the key, read as committed by then (a concurrent publisher's may have just committed). */
  Optional<Event> eventByKey(Connection c, String tenant, String key) throws SQLException {
    List<String> reads = dialect.readLatest().isEmpty() ? List.of("") : List.of("", dialect.readLatest());
    for (String read : reads) {
      try (PreparedStatement ps = c.prepareStatement(EVENT_COLUMNS + " WHERE tenant = ? AND idempotency_key = ?" + read)) {
        ps.setString(1, tenant);
        ps.setString(2, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return Optional.of(readEvent(rs));
          }
        }
      }
    }
    return Optional.empty();
  }

  void insertDeliveries(Connection c, UUID eventId, List<String> endpointIds, List<UUID> noticeIds) throws SQLException {
    if (endpointIds.isEmpty()) {
      return;
    }
    int per = 100;
    for (int from = 0; from < endpointIds.size(); from += per) {
      int n = Math.min(per, endpointIds.size() - from);
      StringBuilder sql = new StringBuilder("INSERT INTO herald_event_delivery (event_id, endpoint_id, notice_id) VALUES ");
      for (int i = 0; i < n; i++) {
        sql.append(i == 0 ? "(?, ?, ?)" : ", (?, ?, ?)");
      }
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < n; i++) {
          dialect.setId(ps, 3 * i + 1, eventId);
          ps.setString(3 * i + 2, endpointIds.get(from + i));
          dialect.setId(ps, 3 * i + 3, noticeIds.get(from + i));
        }
        ps.executeUpdate();
      }
    }
  }

  // ------------------------------------------------------------------------------------ reading events

  private static final String EVENT_COLUMNS = "SELECT id, tenant, event_type, payload, idempotency_key, created_at,"
      + " endpoints, expunged FROM herald_event";

  private Event readEvent(ResultSet rs) throws SQLException {
    return new Event(dialect.getId(rs, "id"), rs.getString("tenant"), rs.getString("event_type"),
        rs.getString("payload"), key(rs, "idempotency_key"), Instant.ofEpochMilli(rs.getLong("created_at")),
        rs.getInt("endpoints"), rs.getBoolean("expunged"));
  }

  /** A key column: VARBINARY on MySQL/MariaDB (so that only identical keys match), text elsewhere. */
  private String key(ResultSet rs, String column) throws SQLException {
    if (dialect.name().equals("mysql")) {
      byte[] b = rs.getBytes(column);
      return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
    return rs.getString(column);
  }

  Optional<Event> findEvent(UUID id) {
    return inTransaction("find event " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement(EVENT_COLUMNS + " WHERE id = ?")) {
        dialect.setId(ps, 1, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(readEvent(rs)) : Optional.empty();
        }
      }
    });
  }

  Optional<Event> findEventByKey(String tenant, String key) {
    return inTransaction("find event by key", c -> eventByKey(c, tenant, key));
  }

  /** A tenant's events, newest first, optionally of one type and created within [from, to); one more than {@code limit}. */
  List<Event> listEvents(String tenant, String type, Instant from, Instant to, int offset, int limit) {
    return inTransaction("list events", c -> {
      List<Object> args = new ArrayList<>(List.of(tenant));
      StringBuilder sql = new StringBuilder(EVENT_COLUMNS + " WHERE tenant = ?");
      if (type != null) {
        sql.append(" AND event_type = ?");
        args.add(type);
      }
      if (from != null) {
        sql.append(" AND created_at >= ?");
        args.add(from.toEpochMilli());
      }
      if (to != null) {
        sql.append(" AND created_at < ?");
        args.add(to.toEpochMilli());
      }
      // Literal limits: H2's query cache reuses a LIMIT parameter's first value.
      sql.append(" ORDER BY created_at DESC, id DESC LIMIT ").append(limit + 1).append(" OFFSET ").append(offset);
      List<Event> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < args.size(); i++) {
          ps.setObject(i + 1, args.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readEvent(rs));
          }
        }
      }
      return out;
    });
  }

  /** The deliveries of each event, by endpoint id, with their notices as they stand now. */
  Map<UUID, List<EventDelivery>> deliveries(Collection<UUID> eventIds) {
    if (eventIds.isEmpty()) {
      return Map.of();
    }
    return inTransaction("read event deliveries", c -> deliveries(c, eventIds));
  }

  Map<UUID, List<EventDelivery>> deliveries(Connection c, Collection<UUID> eventIds) throws SQLException {
    Map<UUID, Map<UUID, EventDelivery>> byEvent = new LinkedHashMap<>();
    Map<UUID, String> endpointOf = new HashMap<>();
    Map<UUID, UUID> eventOf = new HashMap<>();
    String in = String.join(", ", java.util.Collections.nCopies(eventIds.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement("SELECT event_id, endpoint_id, notice_id FROM herald_event_delivery"
        + " WHERE event_id IN (" + in + ") ORDER BY endpoint_id")) {
      bindIds(ps, eventIds);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          UUID event = dialect.getId(rs, "event_id");
          UUID notice = dialect.getId(rs, "notice_id");
          String endpoint = rs.getString("endpoint_id");
          endpointOf.put(notice, endpoint);
          eventOf.put(notice, event);
          byEvent.computeIfAbsent(event, k -> new LinkedHashMap<>())
              .put(notice, new EventDelivery(endpoint, notice, null, 0, null, null));
        }
      }
    }
    for (String table : List.of("herald_notice", "herald_notice_history")) {
      try (PreparedStatement ps = c.prepareStatement("SELECT n.id, n.status, n.attempts, n.last_error, n.last_attempt_at"
          + " FROM herald_event_delivery d JOIN " + table + " n ON n.id = d.notice_id WHERE d.event_id IN (" + in + ")")) {
        bindIds(ps, eventIds);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            UUID notice = dialect.getId(rs, "id");
            long last = rs.getLong("last_attempt_at");
            Instant lastAt = rs.wasNull() ? null : Instant.ofEpochMilli(last);
            byEvent.get(eventOf.get(notice)).put(notice, new EventDelivery(endpointOf.get(notice), notice,
                NoticeStatus.valueOf(rs.getString("status")), rs.getInt("attempts"), rs.getString("last_error"), lastAt));
          }
        }
      }
    }
    Map<UUID, List<EventDelivery>> out = new HashMap<>();
    byEvent.forEach((event, ds) -> out.put(event, List.copyOf(ds.values())));
    return out;
  }

  /** Whether {@code noticeId} is one of the event's deliveries. */
  boolean isDeliveryOf(UUID eventId, UUID noticeId) {
    return inTransaction("find a notice's event", c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT notice_id FROM herald_event_delivery WHERE event_id = ?")) {
        dialect.setId(ps, 1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            if (noticeId.equals(dialect.getId(rs, "notice_id"))) {
              return true;
            }
          }
          return false;
        }
      }
    });
  }

  private void bindIds(PreparedStatement ps, Collection<UUID> ids) throws SQLException {
    int i = 1;
    for (UUID id : ids) {
      dialect.setId(ps, i++, id);
    }
  }

  // ------------------------------------------------------------------------------------ upkeep

  /**
   * Deletes up to {@code limit} events created before {@code before} none of whose notices is live
   * any more, with their delivery rows; returns how many.
   */
  int purge(Instant before, int limit) {
    return inTransaction("purge events", c -> {
      List<UUID> ids = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT e.id FROM herald_event e WHERE e.created_at < ? AND NOT"
          + " EXISTS (SELECT 1 FROM herald_event_delivery d JOIN herald_notice n ON n.id = d.notice_id"
          + " WHERE d.event_id = e.id) ORDER BY e.created_at LIMIT " + limit)) {
        ps.setLong(1, before.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ids.add(dialect.getId(rs, "id"));
          }
        }
      }
      if (ids.isEmpty()) {
        return 0;
      }
      String in = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_event_delivery WHERE event_id IN (" + in + ")")) {
        bindIds(ps, ids);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_event WHERE id IN (" + in + ")")) {
        bindIds(ps, ids);
        return ps.executeUpdate();
      }
    });
  }

  /** Replaces an event's payload by JSON null; the notices are expunged separately. */
  boolean expunge(UUID eventId) {
    return inTransaction("expunge event " + eventId, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE herald_event SET payload = 'null', expunged = TRUE WHERE id = ?")) {
        dialect.setId(ps, 1, eventId);
        return ps.executeUpdate() > 0;
      }
    });
  }

  /** The notices of an event, by endpoint. */
  List<UUID> noticesOf(UUID eventId) {
    return inTransaction("read an event's notices", c -> {
      List<UUID> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT notice_id FROM herald_event_delivery WHERE event_id = ?"
          + " ORDER BY endpoint_id")) {
        dialect.setId(ps, 1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(dialect.getId(rs, "notice_id"));
          }
        }
      }
      return out;
    });
  }
}
