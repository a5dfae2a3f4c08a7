package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.DELETE_HISTORY;
import static dev.herald.store.jdbc.NoticeRows.DELETE_LIVE;
import static dev.herald.store.jdbc.NoticeRows.FIRST_ATTEMPT_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.HISTORY_COLUMNS;
import static dev.herald.store.jdbc.NoticeRows.INSERT_ATTEMPT;
import static dev.herald.store.jdbc.NoticeRows.INSERT_HISTORY;
import static dev.herald.store.jdbc.NoticeRows.INSERT_LIVE;
import static dev.herald.store.jdbc.NoticeRows.KEPT_ATTEMPT_AS_LOGGED;
import static dev.herald.store.jdbc.NoticeRows.millis;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * Moves notices between the live table and history: a finished notice's row leaves {@code
 * herald_notice} and its final state enters {@code herald_notice_history} (set-based where the
 * dialect can), and a resent one goes back.
 */
final class Archive extends StorePart {

  Archive(Dialect dialect, Transactions tx, NoticeRows rows) {
    super(dialect, tx, rows);
  }

  /**
   * Archives in one statement: deletes each live row whose version still matches and inserts its
   * history row from the deleted one (payload and other fixed fields never travel back), returning
   * the ids that moved. Used where the dialect can (PostgreSQL); ids sorted for one lock order.
   */
  private static final String ARCHIVE_SET_BASED =
      "WITH input (id, version, next_version, status, attempts, retry_base, last_attempt_at, last_error,"
          + " description, updated_at, finished_at, a_started, a_ms, a_outcome, a_detail, a_node) AS (SELECT * FROM"
          + " unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::text[], ?::int[], ?::int[], ?::bigint[], ?::text[],"
          + " ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[])),"
          + " moved AS (DELETE FROM herald_notice n USING input i WHERE n.id = i.id AND n.version = i.version"
          + " RETURNING n.id, n.definition, n.payload, i.description, n.idempotency_key, i.status, i.attempts,"
          + " i.retry_base, n.fire_at, i.last_attempt_at, i.last_error, n.created_at, i.updated_at, i.finished_at,"
          + " i.next_version, n.shard, n.target, n.traceparent, i.a_started, i.a_ms, i.a_outcome, i.a_detail, i.a_node)"
          + " INSERT INTO herald_notice_history (" + HISTORY_COLUMNS + ", " + FIRST_ATTEMPT_COLUMNS + ")"
          + " SELECT * FROM moved RETURNING id";

  /**
   * Whether the change's history row keeps its attempt: the notice finishes at its first attempt
   * (most deliveries), so one row less is written to {@code herald_attempt}.
   */
  static boolean keepsItsAttempt(Change ch) {
    return ch.attempt() != null && ch.attempt().number() == 1 && !ch.expected().status().isFinished()
        && ch.next().status().isFinished();
  }

  private void archiveSetBased(Connection c, List<Change> changes, List<Integer> indexes, boolean[] applied)
      throws SQLException {
    List<Integer> ordered = new ArrayList<>(indexes);
    ordered.sort(java.util.Comparator.comparing(i -> changes.get(i).expected().id()));
    int n = ordered.size();
    Object[] ids = new Object[n];
    Long[] versions = new Long[n];
    Long[] nextVersions = new Long[n];
    String[] statuses = new String[n];
    Integer[] attempts = new Integer[n];
    Integer[] retryBases = new Integer[n];
    Long[] lastAttempts = new Long[n];
    String[] errors = new String[n];
    String[] descriptions = new String[n];
    Long[] updated = new Long[n];
    Long[] finished = new Long[n];
    Long[] attemptStarted = new Long[n];
    Long[] attemptMs = new Long[n];
    String[] attemptOutcomes = new String[n];
    String[] attemptDetails = new String[n];
    String[] attemptNodes = new String[n];
    java.util.Map<UUID, Integer> indexOf = new java.util.HashMap<>();
    for (int k = 0; k < n; k++) {
      Change ch = changes.get(ordered.get(k));
      NoticeRow next = ch.next();
      Notice nn = next.notice();
      ids[k] = nn.id();
      versions[k] = ch.expected().version();
      nextVersions[k] = next.version();
      statuses[k] = nn.status().name();
      attempts[k] = nn.attempts();
      retryBases[k] = next.retryBase();
      lastAttempts[k] = millis(nn.lastAttemptAt());
      errors[k] = dialect.text(Attempt.bound(nn.lastError()));
      descriptions[k] = dialect.text(nn.description());
      updated[k] = nn.updatedAt().toEpochMilli();
      finished[k] = nn.finishedAt().toEpochMilli();
      if (keepsItsAttempt(ch)) {
        Attempt a = ch.attempt();
        attemptStarted[k] = a.startedAt().toEpochMilli();
        attemptMs[k] = a.duration().toMillis();
        attemptOutcomes[k] = a.outcome().name();
        attemptDetails[k] = dialect.text(Attempt.bound(a.detail()));
        attemptNodes[k] = a.node();
      }
      indexOf.put(nn.id(), ordered.get(k));
    }
    try (PreparedStatement ps = c.prepareStatement(ARCHIVE_SET_BASED)) {
      ps.setArray(1, c.createArrayOf("uuid", ids));
      ps.setArray(2, c.createArrayOf("bigint", versions));
      ps.setArray(3, c.createArrayOf("bigint", nextVersions));
      ps.setArray(4, c.createArrayOf("text", statuses));
      ps.setArray(5, c.createArrayOf("integer", attempts));
      ps.setArray(6, c.createArrayOf("integer", retryBases));
      ps.setArray(7, c.createArrayOf("bigint", lastAttempts));
      ps.setArray(8, c.createArrayOf("text", errors));
      ps.setArray(9, c.createArrayOf("text", descriptions));
      ps.setArray(10, c.createArrayOf("bigint", updated));
      ps.setArray(11, c.createArrayOf("bigint", finished));
      ps.setArray(12, c.createArrayOf("bigint", attemptStarted));
      ps.setArray(13, c.createArrayOf("bigint", attemptMs));
      ps.setArray(14, c.createArrayOf("text", attemptOutcomes));
      ps.setArray(15, c.createArrayOf("text", attemptDetails));
      ps.setArray(16, c.createArrayOf("text", attemptNodes));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          applied[indexOf.get(dialect.getId(rs, "id"))] = true;
        }
      }
    }
  }

  /**
   * Moves finished notices' rows to history: deletes each live row (version-checked), then inserts
   * its history row, with its attempt where it {@linkplain #keepsItsAttempt keeps it}.
   */
  void archive(Connection c, List<Change> changes, List<Integer> indexes, boolean[] applied) throws SQLException {
    if (dialect.archivesSetBased()) {
      archiveSetBased(c, changes, indexes, applied);
      return;
    }
    deleteVersionChecked(c, DELETE_LIVE, changes, indexes, applied);
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(INSERT_HISTORY)) {
      for (int i : indexes) {
        if (applied[i]) {
          Change ch = changes.get(i);
          bindHistory(ps, ch.next(), keepsItsAttempt(ch) ? ch.attempt() : null);
          ps.addBatch();
          any = true;
        }
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  /**
   * Moves finished notices back to the live table (a resend). A history row that kept its notice's
   * attempt gives it back to {@code herald_attempt} first: the rows are locked as they are read, so
   * what is read is what the version-checked delete then removes.
   */
  void restore(Connection c, List<Change> changes, List<Integer> indexes, boolean[] applied) throws SQLException {
    java.util.Map<Integer, Attempt> kept = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT version, " + KEPT_ATTEMPT_AS_LOGGED
        + " FROM herald_notice_history WHERE id = ? FOR UPDATE")) {
      for (int i : indexes) {
        NoticeRow expected = changes.get(i).expected();
        dialect.setId(ps, 1, expected.id());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getLong("version") == expected.version() && rs.getString("outcome") != null) {
            kept.put(i, readAttempt(rs));
          }
        }
      }
    }
    deleteVersionChecked(c, DELETE_HISTORY, changes, indexes, applied);
    List<Attempt> back = new ArrayList<>();
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(INSERT_LIVE)) {
      for (int i : indexes) {
        if (applied[i]) {
          bindLive(ps, changes.get(i).next());
          ps.addBatch();
          any = true;
          if (kept.containsKey(i)) {
            back.add(kept.get(i));
          }
        }
      }
      if (any) {
        ps.executeBatch();
      }
    }
    if (!back.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(INSERT_ATTEMPT)) {
        for (Attempt a : back) {
          bindAttempt(ps, a);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  private void deleteVersionChecked(Connection c, String deleteSql, List<Change> changes, List<Integer> indexes,
      boolean[] applied) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(deleteSql)) {
      markApplied(executeCounted(ps, indexes, (st, i) -> {
        NoticeRow expected = changes.get(i).expected();
        dialect.setId(st, 1, expected.id());
        st.setLong(2, expected.version());
      }), indexes, applied);
    }
  }
}
