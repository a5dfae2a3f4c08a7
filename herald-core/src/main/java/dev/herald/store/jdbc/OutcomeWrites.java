package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.INSERT_ATTEMPT;
import static dev.herald.store.jdbc.NoticeRows.millis;
import static dev.herald.store.jdbc.NoticeRows.setLong;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.spi.Applied;
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
 * Writes the engine's outcomes ({@link Change}s) in one transaction: version-checked updates of
 * live rows, moves to and from history (see {@link Archive}), late confirmations in history, the
 * attempt log, and the alerts the outcomes raised ({@link AlertOutbox}).
 */
final class OutcomeWrites extends StorePart {
  private final Archive archive;
  private final AlertOutbox alerts;

  private final NodeStatements nodes;

  OutcomeWrites(Dialect dialect, Transactions tx, NoticeRows rows, Archive archive, AlertOutbox alerts,
      NodeStatements nodes) {
    super(dialect, tx, rows);
    this.archive = archive;
    this.alerts = alerts;
    this.nodes = nodes;
  }

  static final String UPDATE_LIVE =
      "UPDATE herald_notice SET description = ?, status = ?, attempts = ?, retry_base = ?, due_at = ?,"
          + " last_attempt_at = ?, last_error = ?, updated_at = ?, owner = ?, lease_until = ?, version = ?,"
          + " fire_at = ?, target = ? WHERE id = ? AND version = ?";
  /** Written only when an edit changed the payload, so that retries never rewrite it. */
  static final String UPDATE_PAYLOAD = "UPDATE herald_notice SET payload = ? WHERE id = ? AND version = ?";

  List<Applied> apply(List<Change> changes) {
    if (changes.isEmpty()) {
      return List.of();
    }
    return inTransaction("record " + changes.size() + " outcome(s)", c -> applyAll(c, changes));
  }

  private List<Applied> applyAll(Connection c, List<Change> changes) throws SQLException {
    boolean[] applied = write(c, changes);
    boolean[] confirmed = consumeEarlyConfirmations(c, changes, applied);
    insertAttempts(c, changes, applied);
    boolean[] alerting = applied.clone();
    for (int i = 0; i < alerting.length; i++) {
      alerting[i] &= !confirmed[i]; // a confirmed notice raises no alert
    }
    alerts.insert(c, changes, alerting);
    List<Applied> out = new ArrayList<>(applied.length);
    for (int i = 0; i < applied.length; i++) {
      out.add(confirmed[i] ? Applied.CONFIRMED : applied[i] ? Applied.APPLIED : Applied.STALE);
    }
    return out;
  }

  /**
   * Applied changes that can be confirmed take the early confirmations waiting for their notices,
   * and those notices move on to their confirmed form, in this transaction. The confirmations are
   * read after the changes wrote (and locked) their rows, and {@link
   * dev.herald.spi.NoticeStore#recordEarlyConfirmation} locks the row before it records one: either
   * it committed before, and is seen here, or it waits for this commit and sees the outcome.
   */
  private boolean[] consumeEarlyConfirmations(Connection c, List<Change> changes, boolean[] applied)
      throws SQLException {
    boolean[] confirmed = new boolean[changes.size()];
    List<java.util.UUID> candidates = new ArrayList<>();
    for (int i = 0; i < changes.size(); i++) {
      if (applied[i] && changes.get(i).ifConfirmed() != null) {
        candidates.add(changes.get(i).next().id());
      }
    }
    if (candidates.isEmpty()) {
      return confirmed;
    }
    java.util.Set<java.util.UUID> waiting = nodes.takeEarlyConfirmations(c, candidates);
    if (waiting.isEmpty()) {
      return confirmed;
    }
    List<Change> follow = new ArrayList<>();
    List<Integer> from = new ArrayList<>();
    for (int i = 0; i < changes.size(); i++) {
      if (applied[i] && changes.get(i).ifConfirmed() != null && waiting.contains(changes.get(i).next().id())) {
        follow.add(changes.get(i).confirmation());
        from.add(i);
      }
    }
    boolean[] done = write(c, follow);
    for (int k = 0; k < done.length; k++) {
      if (!done[k]) { // the row was written a moment ago, in this transaction
        throw new SQLException("notice " + follow.get(k).expected().id() + " changed inside its own transaction");
      }
      confirmed[from.get(k)] = true;
    }
    return confirmed;
  }

  /** The version-checked writes of the changes' rows (live, history, or between them); true where one applied. */
  private boolean[] write(Connection c, List<Change> changes) throws SQLException {
    boolean[] applied = new boolean[changes.size()];
    List<Integer> updates = new ArrayList<>();
    List<Integer> archives = new ArrayList<>();
    List<Integer> restores = new ArrayList<>();
    List<Integer> finishedAgain = new ArrayList<>(); // a late confirmation: DEAD -> SUCCEEDED, in history
    for (int i = 0; i < changes.size(); i++) {
      Change ch = changes.get(i);
      if (ch.expected().status().isFinished() && ch.next().status().isFinished()) {
        finishedAgain.add(i);
      } else if (ch.expected().status().isFinished()) {
        restores.add(i);
      } else if (ch.next().status().isFinished()) {
        archives.add(i);
      } else {
        updates.add(i);
      }
    }
    // Each group in id order, as renewals and adoptions lock (PostgreSQL's set-based archive deletes
    // in plan order, though: a hash join over the table yields heap order).
    Comparator<Integer> byId = Comparator.comparing(i -> changes.get(i).expected().id());
    updates.sort(byId);
    archives.sort(byId);
    restores.sort(byId);
    // Updates run before archives, so where their ids interleave the batch takes live rows out of id
    // order. Where a stale version-checked write still locks its row (InnoDB), a paused node's stale
    // batch of the same notices holds rows too, and the two can deadlock: lock them all first, in id
    // order. Elsewhere stale writes lock nothing and live batches share no rows: no round trip spent.
    if (dialect.staleWritesLockRows() && !updates.isEmpty() && !archives.isEmpty()
        && changes.get(updates.getLast()).expected().id().compareTo(changes.get(archives.getFirst()).expected().id()) > 0) {
      lockLiveInIdOrder(c, java.util.stream.Stream.concat(updates.stream(), archives.stream())
          .map(i -> changes.get(i).expected().id()).sorted().toList());
    }
    if (!updates.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(UPDATE_LIVE)) {
        markApplied(executeCounted(ps, updates, (st, i) -> bindUpdate(st, changes.get(i))), updates, applied);
      }
      List<Integer> newPayloads = updates.stream()
          .filter(i -> applied[i]
              && !changes.get(i).next().notice().payload().equals(changes.get(i).expected().notice().payload()))
          .toList();
      if (!newPayloads.isEmpty()) {
        try (PreparedStatement ps = c.prepareStatement(UPDATE_PAYLOAD)) {
          for (int i : newPayloads) {
            NoticeRow next = changes.get(i).next();
            ps.setString(1, next.notice().payload());
            dialect.setId(ps, 2, next.id());
            ps.setLong(3, next.version());
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
    }
    if (!archives.isEmpty()) {
      archive.archive(c, changes, archives, applied);
    }
    if (!restores.isEmpty()) {
      archive.restore(c, changes, restores, applied);
    }
    if (!finishedAgain.isEmpty()) {
      finishedAgain.sort(byId);
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_notice_history SET status = ?, last_error = ?,"
          + " updated_at = ?, finished_at = ?, version = ? WHERE id = ? AND version = ?")) {
        markApplied(executeCounted(ps, finishedAgain, (st, i) -> {
          NoticeRow next = changes.get(i).next();
          st.setString(1, next.status().name());
          st.setString(2, dialect.text(Attempt.bound(next.notice().lastError())));
          st.setLong(3, next.notice().updatedAt().toEpochMilli());
          st.setLong(4, next.notice().finishedAt().toEpochMilli());
          st.setLong(5, next.version());
          dialect.setId(st, 6, next.id());
          st.setLong(7, changes.get(i).expected().version());
        }), finishedAgain, applied);
      }
    }
    return applied;
  }

  /** Locks these live rows (sorted by id) in id order: one statement per 1,000. */
  private void lockLiveInIdOrder(Connection c, List<UUID> ids) throws SQLException {
    for (int from = 0; from < ids.size(); from += 1_000) {
      List<UUID> chunk = ids.subList(from, Math.min(ids.size(), from + 1_000));
      try (PreparedStatement ps = c.prepareStatement("SELECT id FROM herald_notice WHERE id IN ("
          + placeholders(chunk.size()) + ") ORDER BY id FOR UPDATE")) {
        for (int i = 0; i < chunk.size(); i++) {
          dialect.setId(ps, i + 1, chunk.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            // every row read is locked
          }
        }
      }
    }
  }

  /** The applied changes' attempts, but those their history rows keep. */
  private void insertAttempts(Connection c, List<Change> changes, boolean[] applied) throws SQLException {
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(INSERT_ATTEMPT)) {
      for (int i = 0; i < changes.size(); i++) {
        Attempt a = changes.get(i).attempt();
        if (a == null || !applied[i] || Archive.keepsItsAttempt(changes.get(i))) {
          continue;
        }
        bindAttempt(ps, a);
        ps.addBatch();
        any = true;
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  private void bindUpdate(PreparedStatement ps, Change ch) throws SQLException {
    NoticeRow next = ch.next();
    Notice n = next.notice();
    ps.setString(1, dialect.text(n.description()));
    ps.setString(2, n.status().name());
    ps.setInt(3, n.attempts());
    ps.setInt(4, next.retryBase());
    ps.setLong(5, n.nextAttemptAt().toEpochMilli());
    setLong(ps, 6, millis(n.lastAttemptAt()));
    ps.setString(7, dialect.text(Attempt.bound(n.lastError())));
    ps.setLong(8, n.updatedAt().toEpochMilli());
    ps.setString(9, next.owner());
    ps.setLong(10, next.leaseUntil().toEpochMilli());
    ps.setLong(11, next.version());
    ps.setLong(12, n.fireAt().toEpochMilli());
    ps.setString(13, n.target());
    dialect.setId(ps, 14, n.id());
    ps.setLong(15, ch.expected().version());
  }
}
