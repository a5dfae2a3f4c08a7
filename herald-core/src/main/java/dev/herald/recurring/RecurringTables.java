package dev.herald.recurring;

import dev.herald.StoreException;
import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The SQL of recurring schedules and their fired slots. */
final class RecurringTables {
  /** {@code next_slot_at} of a schedule with no next slot. */
  static final long NEVER = Long.MAX_VALUE;
  /** Fired slots kept per schedule (older rows go; the notices stay as long as the history keeps them). */
  static final int SLOTS_KEPT = 100;

  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  private static final String COLUMNS = "tenant, name, description, definition, payload, cron, time_zone, every_ms,"
      + " anchor_at, missed, paused, next_slot_at, last_slot_at, skipped_slots, last_error, created_at, updated_at";

  private final DataSource dataSource;
  private final Dialect dialect;

  RecurringTables(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  <T> T run(String what, SqlWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw new StoreException("cannot " + what + ": " + e.getMessage(), e);
    }
  }

  Optional<RecurringSchedule> find(Connection c, String tenant, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM herald_recurring WHERE tenant = ?"
        + " AND name = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  List<RecurringSchedule> list(String tenant) {
    return run("list recurring schedules", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM herald_recurring WHERE tenant = ?"
          + " ORDER BY name")) {
        ps.setString(1, tenant);
        return readAll(ps);
      }
    });
  }

  /** Unpaused schedules whose next slot is due by {@code now}, soonest first. */
  List<RecurringSchedule> due(Instant now, int limit) {
    return run("read due recurring schedules", c -> {
      // a literal limit: H2's query cache reuses a LIMIT parameter's first value
      try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM herald_recurring WHERE next_slot_at"
          + " <= ? AND paused = FALSE ORDER BY next_slot_at LIMIT " + limit)) {
        ps.setLong(1, now.toEpochMilli());
        return readAll(ps);
      }
    });
  }

  void insert(Connection c, RecurringSchedule s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_recurring (" + COLUMNS + ") VALUES (?, ?, ?, ?,"
        + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      bind(ps, s);
      ps.executeUpdate();
    }
  }

  void update(Connection c, RecurringSchedule s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE herald_recurring SET tenant = ?, name = ?, description = ?,"
        + " definition = ?, payload = ?, cron = ?, time_zone = ?, every_ms = ?, anchor_at = ?, missed = ?, paused = ?,"
        + " next_slot_at = ?, last_slot_at = ?, skipped_slots = ?, last_error = ?, created_at = ?, updated_at = ?"
        + " WHERE tenant = ? AND name = ?")) {
      bind(ps, s);
      ps.setString(18, s.tenant());
      ps.setString(19, s.name());
      ps.executeUpdate();
    }
  }

  boolean delete(String tenant, String name) {
    return run("delete recurring schedule " + name, c -> {
      try (PreparedStatement slots = c.prepareStatement("DELETE FROM herald_recurring_slot WHERE tenant = ? AND name = ?");
          PreparedStatement ps = c.prepareStatement("DELETE FROM herald_recurring WHERE tenant = ? AND name = ?")) {
        slots.setString(1, tenant);
        slots.setString(2, name);
        slots.executeUpdate();
        ps.setString(1, tenant);
        ps.setString(2, name);
        return ps.executeUpdate() > 0;
      }
    });
  }

  /**
   * Moves a schedule's next slot on from {@code expected}, in the firing transaction; false when it
   * is no longer there (another node fired it, or it was paused or changed since it was read).
   */
  boolean advance(Connection c, RecurringSchedule s, Instant expected, Instant next, Instant lastSlot, long skipped,
      Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE herald_recurring SET next_slot_at = ?, last_slot_at = ?,"
        + " skipped_slots = skipped_slots + ?, last_error = NULL, updated_at = ? WHERE tenant = ? AND name = ?"
        + " AND next_slot_at = ? AND paused = FALSE")) {
      ps.setLong(1, next == null ? NEVER : next.toEpochMilli());
      if (lastSlot == null) {
        ps.setObject(2, s.lastSlot() == null ? null : s.lastSlot().toEpochMilli(), Types.BIGINT);
      } else {
        ps.setLong(2, lastSlot.toEpochMilli());
      }
      ps.setLong(3, skipped);
      ps.setLong(4, now.toEpochMilli());
      ps.setString(5, s.tenant());
      ps.setString(6, s.name());
      ps.setLong(7, expected.toEpochMilli());
      return ps.executeUpdate() == 1;
    }
  }

  /** Records fired slots (the primary key refuses a slot fired twice) and keeps the latest {@value #SLOTS_KEPT}. */
  void recordSlots(Connection c, RecurringSchedule s, List<FiredSlot> slots) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_recurring_slot (tenant, name, slot_at,"
        + " notice_id, fired_at) VALUES (?, ?, ?, ?, ?)")) {
      for (FiredSlot slot : slots) {
        ps.setString(1, s.tenant());
        ps.setString(2, s.name());
        ps.setLong(3, slot.slot().toEpochMilli());
        dialect.setId(ps, 4, slot.noticeId());
        ps.setLong(5, slot.firedAt().toEpochMilli());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    Long cutoff = null;
    try (PreparedStatement ps = c.prepareStatement("SELECT slot_at FROM herald_recurring_slot WHERE tenant = ? AND"
        + " name = ? ORDER BY slot_at DESC LIMIT 1 OFFSET " + (SLOTS_KEPT - 1))) {
      ps.setString(1, s.tenant());
      ps.setString(2, s.name());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          cutoff = rs.getLong(1);
        }
      }
    }
    if (cutoff != null) {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_recurring_slot WHERE tenant = ? AND name = ?"
          + " AND slot_at < ?")) {
        ps.setString(1, s.tenant());
        ps.setString(2, s.name());
        ps.setLong(3, cutoff);
        ps.executeUpdate();
      }
    }
  }

  /** The latest fired slots of a schedule, newest first. */
  List<FiredSlot> slots(String tenant, String name, int limit) {
    return run("read the slots of " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT slot_at, notice_id, fired_at FROM herald_recurring_slot"
          + " WHERE tenant = ? AND name = ? ORDER BY slot_at DESC LIMIT " + Math.max(1, Math.min(limit, SLOTS_KEPT)))) {
        ps.setString(1, tenant);
        ps.setString(2, name);
        List<FiredSlot> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new FiredSlot(Instant.ofEpochMilli(rs.getLong(1)), dialect.getId(rs, "notice_id"),
                Instant.ofEpochMilli(rs.getLong(3))));
          }
        }
        return out;
      }
    });
  }

  /** Notes why a schedule could not fire, outside the failed transaction. */
  void recordError(String tenant, String name, String error) {
    run("record the error of " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_recurring SET last_error = ? WHERE tenant = ? AND"
          + " name = ?")) {
        ps.setString(1, error.length() > 2000 ? error.substring(0, 2000) : error);
        ps.setString(2, tenant);
        ps.setString(3, name);
        return ps.executeUpdate();
      }
    });
  }

  private static void bind(PreparedStatement ps, RecurringSchedule s) throws SQLException {
    ps.setString(1, s.tenant());
    ps.setString(2, s.name());
    ps.setString(3, s.description());
    ps.setString(4, s.definition());
    ps.setString(5, s.payload());
    ps.setString(6, s.cron());
    ps.setString(7, s.zone().getId());
    ps.setObject(8, s.every() == null ? null : s.every().toMillis(), Types.BIGINT);
    ps.setObject(9, s.anchor() == null ? null : s.anchor().toEpochMilli(), Types.BIGINT);
    ps.setString(10, s.missed().name());
    ps.setBoolean(11, s.paused());
    ps.setLong(12, s.nextSlot() == null ? NEVER : s.nextSlot().toEpochMilli());
    ps.setObject(13, s.lastSlot() == null ? null : s.lastSlot().toEpochMilli(), Types.BIGINT);
    ps.setLong(14, s.skippedSlots());
    ps.setString(15, s.lastError());
    ps.setLong(16, s.createdAt().toEpochMilli());
    ps.setLong(17, s.updatedAt().toEpochMilli());
  }

  private static List<RecurringSchedule> readAll(PreparedStatement ps) throws SQLException {
    List<RecurringSchedule> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(read(rs));
      }
    }
    return out;
  }

  private static RecurringSchedule read(ResultSet rs) throws SQLException {
    long every = rs.getLong("every_ms");
    boolean hasEvery = !rs.wasNull();
    long anchor = rs.getLong("anchor_at");
    boolean hasAnchor = !rs.wasNull();
    long next = rs.getLong("next_slot_at");
    long last = rs.getLong("last_slot_at");
    boolean hasLast = !rs.wasNull();
    return new RecurringSchedule(rs.getString("tenant"), rs.getString("name"), rs.getString("description"),
        rs.getString("definition"), rs.getString("payload"), rs.getString("cron"),
        RecurringSchedule.zone(rs.getString("time_zone")), hasEvery ? Duration.ofMillis(every) : null,
        hasAnchor ? Instant.ofEpochMilli(anchor) : null,
        RecurringSchedule.MissedSlots.valueOf(rs.getString("missed")), rs.getBoolean("paused"),
        next == NEVER ? null : Instant.ofEpochMilli(next), hasLast ? Instant.ofEpochMilli(last) : null,
        rs.getLong("skipped_slots"), rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("created_at")),
        Instant.ofEpochMilli(rs.getLong("updated_at")));
  }
}
