package dev.herald;

import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What was sent, done again or taken back ({@code herald.history()}): replaying a definition's notices
 * of a time range (everything its receiver got, or only what failed), and expunging a finished
 * notice's payload and attempt details (personal data) while keeping its ids, times and outcomes.
 */
public final class NoticeHistory {
  /** Most notices one replay resends; a larger range is replayed in parts. */
  public static final int MAX_REPLAY = 10_000;
  /** What an expunged attempt's detail and a notice's last error read. */
  public static final String EXPUNGED = "(expunged)";
  private static final Set<NoticeStatus> GOT = EnumSet.of(NoticeStatus.SUCCEEDED, NoticeStatus.AWAITING_CONFIRM,
      NoticeStatus.FAILED, NoticeStatus.DEAD);
  private static final Set<NoticeStatus> FAILED = EnumSet.of(NoticeStatus.FAILED, NoticeStatus.DEAD);

  /**
   * What a replay did.
   *
   * @param matched notices of the range and statuses, at most {@link #MAX_REPLAY}
   * @param resent those made due now with a fresh attempt budget
   * @param skipped those being delivered at that moment (they are not sent twice at once)
   * @param more whether the range holds more than {@link #MAX_REPLAY}: replay from the last one's creation on
   */
  public record ReplayResult(int matched, int resent, int skipped, boolean more) {}

  /** A notice that has not finished cannot be expunged: it may still be delivered with its payload. */
  public static final class NotFinishedException extends HeraldException {
    private final NoticeStatus status;

    NotFinishedException(UUID id, NoticeStatus status) {
      super("notice " + id + " is " + status + ": only a finished notice is expunged (cancel it first, or wait"
          + " until it has finished)");
      this.status = status;
    }

    public NoticeStatus status() {
      return status;
    }
  }

  /**
   * What expunging an event did.
   *
   * @param expunged its notices expunged
   * @param notFinished its notices not expunged because they may still be delivered (cancel them, then
   *     expunge the event again)
   */
  public record EventExpunge(List<UUID> expunged, List<UUID> notFinished) {}

  private final NoticeOperations operations;
  private final dev.herald.events.Events events;
  private final DataSource dataSource;
  private final Dialect dialect;

  NoticeHistory(NoticeOperations operations, dev.herald.events.Events events, DataSource dataSource, Dialect dialect) {
    this.operations = operations;
    this.events = events;
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /**
   * Expunges an event of a tenant: its payload becomes JSON {@code null} and each of its finished
   * notices is expunged ({@link #expunge(UUID)}); the others are listed, not touched.
   *
   * @throws InvalidInputException naming {@code id} when the tenant has no such event
   */
  public EventExpunge expungeEvent(String tenant, UUID eventId) {
    List<UUID> done = new ArrayList<>();
    List<UUID> live = new ArrayList<>();
    for (UUID notice : events.expungePayload(tenant, eventId)) {
      try {
        expunge(notice);
        done.add(notice);
      } catch (NotFinishedException e) {
        live.add(notice);
      } catch (NoticeNotFoundException e) {
        done.add(notice); // purged with the history already: nothing of it is left
      }
    }
    return new EventExpunge(done, live);
  }

  /**
   * Sends again the notices of {@code definition} created in [{@code from}, {@code to}): every one its
   * receiver got or failed to get ({@code onlyFailed} false: delivered, awaiting confirmation, failed,
   * dead), or only the failed and dead ones. Each is made due now with a fresh attempt budget;
   * pending and cancelled notices are left alone.
   *
   * @throws InvalidInputException naming {@code to} when the range is empty
   */
  public ReplayResult replay(String definition, Instant from, Instant to, boolean onlyFailed) {
    if (from == null || to == null) {
      throw new InvalidInputException(from == null ? "from" : "to", "is required: the range of creation times");
    }
    Set<NoticeStatus> statuses = onlyFailed ? FAILED : GOT;
    // ids first: each resend moves a notice, so pages of a query that is being changed would skip some
    Set<UUID> ids = new LinkedHashSet<>();
    boolean more = false;
    for (int offset = 0; ; offset += NoticeQuery.MAX_LIMIT) {
      Page<Notice> page = operations.query(new NoticeQuery(definition, statuses, from, to, offset, NoticeQuery.MAX_LIMIT));
      for (Notice n : page.items()) {
        if (ids.size() == MAX_REPLAY) {
          more = true;
          break;
        }
        ids.add(n.id());
      }
      if (more || !page.hasMore()) {
        break;
      }
    }
    int resent = 0;
    int skipped = 0;
    for (UUID id : ids) {
      try {
        operations.resend(id);
        resent++;
      } catch (IllegalTransitionException | NoticeNotFoundException e) {
        skipped++; // being delivered right now, or purged since it was listed
      }
    }
    return new ReplayResult(ids.size(), resent, skipped, more);
  }

  /**
   * Replaces a finished notice's payload by JSON {@code null} and its attempts' details and last error
   * by {@value #EXPUNGED}; its id, definition, times, status and each attempt's outcome stay.
   *
   * @throws NoticeNotFoundException if there is no such notice
   * @throws NotFinishedException if it has not finished: cancel it first, or wait until it has
   */
  public void expunge(UUID id) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        int history = update(c, "UPDATE herald_notice_history SET payload = 'null', last_error = CASE WHEN"
            + " last_error IS NULL THEN NULL ELSE '" + EXPUNGED + "' END, first_attempt_detail = CASE WHEN"
            + " first_attempt_detail IS NULL THEN NULL ELSE '" + EXPUNGED + "' END WHERE id = ?", id);
        if (history == 0) {
          NoticeStatus live = liveStatus(c, id);
          c.rollback();
          if (live == null) {
            throw new NoticeNotFoundException(id);
          }
          throw new NotFinishedException(id, live);
        }
        update(c, "UPDATE herald_attempt SET detail = '" + EXPUNGED + "' WHERE notice_id = ?", id);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("cannot expunge notice " + id + ": " + e.getMessage(), e);
    }
  }

  /**
   * Expunges the notice of an idempotency key ({@link #expunge(UUID)}); returns its id.
   *
   * @throws InvalidInputException naming {@code idempotencyKey} when no notice of {@code definition} has it
   */
  public UUID expungeByKey(String definition, String idempotencyKey) {
    UUID id = noticeOfKey(definition, idempotencyKey);
    if (id == null) {
      throw new InvalidInputException("idempotencyKey", "no notice of definition '" + definition + "' has key '"
          + idempotencyKey + "'");
    }
    expunge(id);
    return id;
  }

  private UUID noticeOfKey(String definition, String key) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT notice_id FROM herald_idempotency WHERE definition = ? AND idempotency_key = ?")) {
      ps.setString(1, definition);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? dialect.getId(rs, "notice_id") : null;
      }
    } catch (SQLException e) {
      throw new StoreException("cannot read idempotency key " + key + ": " + e.getMessage(), e);
    }
  }

  private NoticeStatus liveStatus(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT status FROM herald_notice WHERE id = ?")) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? NoticeStatus.valueOf(rs.getString(1)) : null;
      }
    }
  }

  private int update(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      dialect.setId(ps, 1, id);
      return ps.executeUpdate();
    }
  }
}
