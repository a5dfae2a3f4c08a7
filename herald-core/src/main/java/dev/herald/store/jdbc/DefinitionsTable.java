package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.setLong;

import dev.herald.AlertPolicy;
import dev.herald.NoticeDefinition;
import dev.herald.StoreException;
import dev.herald.schedule.RetrySchedule;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The {@code herald_definition} table: each kind of notice by name, saved by every node that starts. */
final class DefinitionsTable extends StorePart {

  DefinitionsTable(Dialect dialect, Transactions tx, NoticeRows rows) {
    super(dialect, tx, rows);
  }

  void saveDefinition(NoticeDefinition d, Instant now) {
    try {
      saveDefinitionOnce(d, now);
    } catch (StoreException e) {
      if (!(e.getCause() instanceof SQLException sql && dialect.isDuplicateKey(sql))) {
        throw e;
      }
      saveDefinitionOnce(d, now); // nodes starting together inserted it at once: update the winner's row
    }
  }

  private void saveDefinitionOnce(NoticeDefinition d, Instant now) {
    inTransaction("save definition " + d.name(), c -> {
      int updated;
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE herald_definition SET channel = ?, target = ?, retry_schedule = ?, max_attempts = ?,"
              + " max_interval_ms = ?, alert_policy = ?, confirm_required = ?, confirm_timeout_ms = ?,"
              + " description = ?, updated_at = ?, options = ?, ordering = ? WHERE name = ?")) {
        bindDefinition(ps, d);
        ps.setLong(10, now.toEpochMilli());
        ps.setString(11, DefinitionOptions.write(d.options()));
        ps.setString(12, d.ordering().text());
        ps.setString(13, d.name());
        updated = ps.executeUpdate();
      }
      if (updated == 0) {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO herald_definition (channel, target, retry_schedule, max_attempts, max_interval_ms,"
                + " alert_policy, confirm_required, confirm_timeout_ms, description, updated_at, name, created_at,"
                + " options, ordering) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
          bindDefinition(ps, d);
          ps.setLong(10, now.toEpochMilli());
          ps.setString(11, d.name());
          ps.setLong(12, now.toEpochMilli());
          ps.setString(13, DefinitionOptions.write(d.options()));
          ps.setString(14, d.ordering().text());
          ps.executeUpdate();
        }
      }
      return null;
    });
  }

  private static void bindDefinition(PreparedStatement ps, NoticeDefinition d) throws SQLException {
    ps.setString(1, d.channel());
    ps.setString(2, d.target());
    ps.setString(3, d.retrySchedule().text());
    ps.setInt(4, d.maxAttempts());
    setLong(ps, 5, d.maxInterval() == null ? null : d.maxInterval().toMillis());
    ps.setString(6, d.alertPolicy().text());
    ps.setBoolean(7, d.confirmRequired());
    ps.setLong(8, d.confirmTimeout().toMillis());
    ps.setString(9, d.description());
  }

  Optional<NoticeDefinition> findDefinition(String name) {
    return inTransaction("find definition " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT * FROM herald_definition WHERE name = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(readDefinition(rs)) : Optional.empty();
        }
      }
    });
  }

  List<NoticeDefinition> listDefinitions() {
    return inTransaction("list definitions", c -> {
      List<NoticeDefinition> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT * FROM herald_definition ORDER BY name");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(readDefinition(rs));
        }
      }
      return out;
    });
  }

  boolean deleteDefinition(String name) {
    return inTransaction("delete definition " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM herald_definition WHERE name = ?")) {
        ps.setString(1, name);
        return ps.executeUpdate() > 0;
      }
    });
  }

  private static NoticeDefinition readDefinition(ResultSet rs) throws SQLException {
    long maxInterval = rs.getLong("max_interval_ms");
    Duration cap = rs.wasNull() ? null : Duration.ofMillis(maxInterval);
    return new NoticeDefinition(
        rs.getString("name"),
        rs.getString("channel"),
        rs.getString("target"),
        RetrySchedule.parse(rs.getString("retry_schedule")),
        rs.getInt("max_attempts"),
        cap,
        AlertPolicy.parse(rs.getString("alert_policy")),
        rs.getBoolean("confirm_required"),
        Duration.ofMillis(rs.getLong("confirm_timeout_ms")),
        rs.getString("description"),
        DefinitionOptions.read(rs.getString("options")),
        dev.herald.Ordering.parse(rs.getString("ordering")));
  }
}
