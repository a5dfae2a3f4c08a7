package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.DELETE_HISTORY;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/** Retention: deletes archived notices finished before a cut-off, with their attempts and idempotency keys. */
final class HistoryPurge extends StorePart {

  private final OrderingStatements ordering;

  HistoryPurge(Dialect dialect, Transactions tx, NoticeRows rows, OrderingStatements ordering) {
    super(dialect, tx, rows);
    this.ordering = ordering;
  }

  int purgeHistory(Instant before, int limit) {
    record Finished(UUID id, long version) {}
    return inTransaction("purge history", c -> {
      List<Finished> old = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, version FROM herald_notice_history WHERE finished_at < ? ORDER BY finished_at LIMIT ?")) {
        ps.setLong(1, before.toEpochMilli());
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            old.add(new Finished(dialect.getId(rs, "id"), rs.getLong("version")));
          }
        }
      }
      if (old.isEmpty()) {
        return 0;
      }
      // History rows first, version-checked and in id order (the order of resends and other purges):
      // a notice a resend restored since the select stays, and keeps its attempts and key.
      old.sort(Comparator.comparing(Finished::id));
      List<UUID> deleted = new ArrayList<>(old.size());
      try (PreparedStatement ps = c.prepareStatement(DELETE_HISTORY)) {
        int[] counts = executeCounted(ps, old, (st, f) -> {
          dialect.setId(st, 1, f.id());
          st.setLong(2, f.version());
        });
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] == 1) {
            deleted.add(old.get(i).id());
          }
        }
      }
      for (String sql : List.of(
          "DELETE FROM herald_attempt WHERE notice_id = ?", "DELETE FROM herald_idempotency WHERE notice_id = ?",
          // an alert nobody drained within the retention (Herald embedded without a drain) goes with its notice
          "DELETE FROM herald_alert WHERE notice_id = ?")) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          for (UUID id : deleted) {
            dialect.setId(ps, 1, id);
            ps.addBatch();
          }
          if (!deleted.isEmpty()) {
            ps.executeBatch();
          }
        }
      }
      ordering.purge(c, deleted);
      return deleted.size();
    });
  }
}
