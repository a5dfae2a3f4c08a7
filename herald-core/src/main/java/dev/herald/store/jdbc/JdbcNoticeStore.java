package dev.herald.store.jdbc;

import dev.herald.AlertPolicy;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Ordering;
import dev.herald.Page;
import dev.herald.StoreException;
import dev.herald.schedule.RetrySchedule;
import dev.herald.spi.Change;
import dev.herald.spi.Claim;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.Comparator;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link NoticeStore} over JDBC. Thread-safe; each call borrows a connection from the pool. */
public final class JdbcNoticeStore implements NoticeStore {
  private static final Logger log = LoggerFactory.getLogger(JdbcNoticeStore.class);

  private static final String LIVE_COLUMNS =
      "id, definition, payload, description, idempotency_key, status, attempts, retry_base, fire_at, due_at,"
          + " last_attempt_at, last_error, created_at, updated_at, owner, lease_until, version, shard, target";
  private static final String LIVE_COLUMNS_OF_N =
      String.join(", ", java.util.Arrays.stream(LIVE_COLUMNS.split(",")).map(col -> "n." + col.strip()).toList());
  private static final String HISTORY_COLUMNS =
      "id, definition, payload, description, idempotency_key, status, attempts, retry_base, fire_at,"
          + " last_attempt_at, last_error, created_at, updated_at, finished_at, version, shard, target";
  private static final String INSERT_LIVE =
      "INSERT INTO herald_notice (" + LIVE_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_HISTORY =
      "INSERT INTO herald_notice_history (" + HISTORY_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String UPDATE_LIVE =
      "UPDATE herald_notice SET description = ?, status = ?, attempts = ?, retry_base = ?, due_at = ?,"
          + " last_attempt_at = ?, last_error = ?, updated_at = ?, owner = ?, lease_until = ?, version = ?,"
          + " fire_at = ?, target = ? WHERE id = ? AND version = ?";
  /** Written only when an edit changed the payload, so that retries never rewrite it. */
  private static final String UPDATE_PAYLOAD = "UPDATE herald_notice SET payload = ? WHERE id = ? AND version = ?";
  private static final String DELETE_LIVE = "DELETE FROM herald_notice WHERE id = ? AND version = ?";
  private static final String DELETE_HISTORY = "DELETE FROM herald_notice_history WHERE id = ? AND version = ?";
  private static final String INSERT_ATTEMPT =
      "INSERT INTO herald_attempt (notice_id, number, started_at, duration_ms, outcome, detail, node)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?)";

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private final NodeStatements nodes;
  private final OrderingStatements ordering;
  /**
   * Whether the driver reports one update count per row of a batch. The optimistic checks rely on
   * them; a driver that answers {@link Statement#SUCCESS_NO_INFO} (MariaDB Connector/J with {@code
   * useBulkStmts=true}, MySQL Connector/J rewriting batches) turns this off, and the store then runs
   * such statements one by one.
   */
  private volatile boolean exactBatchCounts = true;

  public JdbcNoticeStore(DataSource dataSource, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
    this.nodes = new NodeStatements(dialect);
    this.ordering = new OrderingStatements(dialect);
  }

  /** A store for the given data source, with the dialect detected from the database. */
  public static JdbcNoticeStore create(DataSource dataSource, Clock clock) {
    return new JdbcNoticeStore(dataSource, Dialect.detect(dataSource), clock);
  }

  public Dialect dialect() {
    return dialect;
  }

  @Override
  public void migrate() {
    new SchemaMigrator(dataSource, dialect, clock).migrate();
  }

  // ---------------------------------------------------------------- definitions

  @Override
  public void saveDefinition(NoticeDefinition d, Instant now) {
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

  @Override
  public Optional<NoticeDefinition> findDefinition(String name) {
    return inTransaction("find definition " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT * FROM herald_definition WHERE name = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(readDefinition(rs)) : Optional.empty();
        }
      }
    });
  }

  @Override
  public List<NoticeDefinition> listDefinitions() {
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

  @Override
  public boolean deleteDefinition(String name) {
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
        Ordering.parse(rs.getString("ordering")));
  }

  // ---------------------------------------------------------------- intake

  @Override
  public InsertResult insert(Connection c, NoticeRow row) {
    Notice n = row.notice();
    try {
      if (n.idempotencyKey() != null && !claimIdempotencyKey(c, n)) {
        return new InsertResult(holderOfKey(c, n), false);
      }
      try (PreparedStatement ps = c.prepareStatement(INSERT_LIVE)) {
        bindLive(ps, row);
        ps.executeUpdate();
      }
      return new InsertResult(row, true);
    } catch (SQLException e) {
      throw new StoreException("cannot enqueue notice of definition " + n.definition() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void enterOrder(Connection c, UUID noticeId, String orderingKey, boolean holdOnDead) {
    try {
      ordering.enter(c, noticeId, orderingKey, holdOnDead);
    } catch (SQLException e) {
      throw new StoreException("cannot order notice " + noticeId + " by key " + orderingKey + ": " + e.getMessage(), e);
    }
  }

  /**
   * Records the key; false if it was already taken. The dialect's statement leaves the caller's
   * transaction usable either way (on PostgreSQL a failed statement would abort it).
   */
  private boolean claimIdempotencyKey(Connection c, Notice n) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.insertIdempotencyKey())) {
      ps.setString(1, n.definition());
      ps.setString(2, n.idempotencyKey());
      dialect.setId(ps, 3, n.id());
      ps.setLong(4, n.createdAt().toEpochMilli());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The notice holding the taken key, live or archived. First a plain read, which locks nothing and
   * sees a key committed before the caller's snapshot or taken by its own transaction. Under
   * REPEATABLE READ (MySQL's and MariaDB's default) the key may have been committed after the
   * snapshot began (this insert waited for it), so the snapshot has neither key nor notice: then the
   * dialect's locking read, which sees the latest committed rows. Not the first choice, because its
   * locks hold up the engine's writes of that notice until the caller commits.
   */
  private NoticeRow holderOfKey(Connection c, Notice n) throws SQLException {
    List<String> reads = dialect.readLatest().isEmpty() ? List.of("") : List.of("", dialect.readLatest());
    UUID id = null;
    for (String read : reads) {
      id = noticeOfKey(c, n.definition(), n.idempotencyKey(), read);
      Optional<NoticeRow> row = id == null ? Optional.empty() : find(c, id, read);
      if (row.isPresent()) {
        return row.get();
      }
    }
    throw new StoreException(id == null ? "idempotency key " + n.idempotencyKey() + " vanished while being read"
        : "idempotency key " + n.idempotencyKey() + " points at missing notice " + id, null);
  }

  private UUID noticeOfKey(Connection c, String definition, String key, String read) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT notice_id FROM herald_idempotency WHERE definition = ? AND idempotency_key = ?" + read)) {
      ps.setString(1, definition);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? dialect.getId(rs, "notice_id") : null;
      }
    }
  }

  // ---------------------------------------------------------------- claims and leases

  @Override
  public List<NoticeRow> claim(Claim claim) {
    return inTransaction("claim due notices", c -> {
      beginReadCommitted(c);
      return switch (dialect.claimStrategy()) {
        case SELECT_THEN_UPDATE, LOCK_SKIP_LOCKED_THEN_UPDATE -> claimBySelectThenUpdate(c, claim);
        case UPDATE_SKIP_LOCKED_RETURNING -> claimByUpdateReturning(c, claim);
      };
    });
  }

  /** The claim statement of {@link ClaimStrategy#UPDATE_SKIP_LOCKED_RETURNING} for this claim's filter. */
  String claimByUpdateReturningSql(Claim claim) {
    return "UPDATE herald_notice n SET status = ?, owner = ?, lease_until = ?, version = n.version + 1, updated_at = ?"
        + " FROM (" + dialect.claimSelect("id, version", claimFilter(claim, true)) + ") c"
        + " WHERE n.id = c.id AND n.version = c.version AND n.lease_until < ?"
        + " RETURNING " + LIVE_COLUMNS_OF_N;
  }

  /** One statement locks (skipping rows other claimers hold), leases and returns the rows. */
  private List<NoticeRow> claimByUpdateReturning(Connection c, Claim claim) throws SQLException {
    List<NoticeRow> won = new ArrayList<>(claim.limit());
    try (PreparedStatement ps = c.prepareStatement(claimByUpdateReturningSql(claim))) {
      ps.setString(1, NoticeStatus.IN_FLIGHT.name());
      ps.setString(2, claim.owner());
      ps.setLong(3, claim.leaseUntil().toEpochMilli());
      ps.setLong(4, claim.now().toEpochMilli());
      int next = bindClaimFilter(ps, 5, claim);
      ps.setInt(next++, claim.limit());
      ps.setLong(next, claim.now().toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          won.add(readLive(rs));
        }
      }
    }
    won.sort(Comparator.comparing(r -> r.notice().nextAttemptAt())); // RETURNING has no order
    return won;
  }

  /**
   * The claim's candidate filter: due, free, and (for nodes with affinity) of their definitions and
   * shards. Parameters: horizon, now, then {@link #bindAffinity}.
   */
  static String claimFilter(Claim claim, boolean withOrdering) {
    StringBuilder where = new StringBuilder(
        "due_at <= ? AND lease_until < ? AND (owner IS NULL OR " + NodeStatements.OWNER_IS_DEAD + ")");
    if (withOrdering) {
      where.append(" AND ").append(OrderingStatements.CLAIMABLE);
    }
    if (!claim.definitions().isEmpty()) {
      where.append(" AND definition IN (").append(placeholders(claim.definitions().size())).append(')');
    }
    if (!claim.shards().isEmpty()) {
      where.append(" AND shard IN (").append(placeholders(claim.shards().size())).append(')');
    }
    return where.toString();
  }

  /** Binds the claim filter's parameters from {@code index}; returns the next free index. */
  static int bindClaimFilter(PreparedStatement ps, int index, Claim claim) throws SQLException {
    ps.setLong(index++, claim.horizon().toEpochMilli());
    ps.setLong(index++, claim.now().toEpochMilli());
    ps.setLong(index++, claim.aliveSince().toEpochMilli());
    for (String d : claim.definitions().stream().sorted().toList()) {
      ps.setString(index++, d);
    }
    for (int shard : claim.shards().stream().sorted().toList()) {
      ps.setInt(index++, shard);
    }
    return index;
  }

  private static String placeholders(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }

  private List<NoticeRow> claimBySelectThenUpdate(Connection c, Claim claim) throws SQLException {
    List<NoticeRow> candidates = new ArrayList<>(claim.limit());
    boolean locking = dialect.claimStrategy() == ClaimStrategy.LOCK_SKIP_LOCKED_THEN_UPDATE;
    try (PreparedStatement ps = c.prepareStatement(dialect.claimSelect(LIVE_COLUMNS, claimFilter(claim, !locking)))) {
      ps.setInt(bindClaimFilter(ps, 1, claim), claim.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(readLive(rs));
        }
      }
    }
    if (locking && !candidates.isEmpty()) {
      Set<UUID> held = ordering.heldBack(c, candidates.stream().map(NoticeRow::id).toList());
      candidates.removeIf(row -> held.contains(row.id()));
    }
    if (candidates.isEmpty()) {
      return candidates;
    }
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE herald_notice SET status = ?, owner = ?, lease_until = ?, version = ?, updated_at = ?"
            + " WHERE id = ? AND version = ? AND lease_until < ?")) {
      int[] counts = executeCounted(ps, candidates, (st, row) -> {
        st.setString(1, NoticeStatus.IN_FLIGHT.name());
        st.setString(2, claim.owner());
        st.setLong(3, claim.leaseUntil().toEpochMilli());
        st.setLong(4, row.version() + 1);
        st.setLong(5, claim.now().toEpochMilli());
        dialect.setId(st, 6, row.id());
        st.setLong(7, row.version()); // a row changed since the select (another claim, an outcome) is not free
        st.setLong(8, claim.now().toEpochMilli()); // nor one whose lease was renewed
      });
      List<NoticeRow> won = new ArrayList<>(candidates.size());
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 1) {
          won.add(leasedCopy(candidates.get(i), claim));
        }
      }
      return won;
    }
  }

  private static NoticeRow leasedCopy(NoticeRow row, Claim claim) {
    Notice n = row.notice();
    Notice leased = new Notice(n.id(), n.definition(), n.payload(), n.description(), n.idempotencyKey(),
        NoticeStatus.IN_FLIGHT, n.attempts(), n.fireAt(), n.nextAttemptAt(), n.lastAttemptAt(), n.lastError(),
        n.createdAt(), claim.now(), null, n.target());
    return row.next(leased, claim.owner(), claim.leaseUntil());
  }

  @Override
  public int countDue(Instant now, int cap) {
    return inTransaction("count due notices", c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT COUNT(*) FROM (SELECT 1 FROM herald_notice WHERE due_at <= ? LIMIT ?) due")) {
        ps.setLong(1, now.toEpochMilli());
        ps.setInt(2, cap);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    });
  }

  @Override
  public Set<UUID> adopt(String provisional, String owner, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return inTransaction("adopt committed notices", c -> {
      List<UUID> ordered = new ArrayList<>(new java.util.TreeSet<>(ids)); // one lock order for every writer
      Set<UUID> adopted = new HashSet<>();
      try (PreparedStatement ps = c.prepareStatement("UPDATE herald_notice SET owner = ?, version = version + 1"
          + " WHERE id = ? AND owner = ? AND status = 'IN_FLIGHT'")) {
        int[] counts = executeCounted(ps, ordered, (st, id) -> {
          st.setString(1, owner);
          dialect.setId(st, 2, id);
          st.setString(3, provisional);
        });
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] == 1) {
            adopted.add(ordered.get(i));
          }
        }
      }
      return adopted;
    });
  }

  @Override
  public int releaseAll(String owner, Instant now) {
    return inTransaction("release leases of " + owner, c -> {
      beginReadCommitted(c);
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE herald_notice SET status = CASE WHEN attempts = retry_base THEN 'PENDING'"
              + " WHEN last_error IS NULL THEN 'AWAITING_CONFIRM' ELSE 'FAILED' END,"
              + " owner = NULL, lease_until = 0, version = version + 1, updated_at = ?"
              + " WHERE owner = ? AND status = 'IN_FLIGHT'")) {
        ps.setLong(1, now.toEpochMilli());
        ps.setString(2, owner);
        return ps.executeUpdate();
      }
    });
  }

  // ---------------------------------------------------------------- node liveness and requests

  @Override
  public void registerNode(String owner, String nodeId, Instant now) {
    inTransaction("register node " + owner, c -> {
      nodes.register(c, owner, nodeId, now);
      return null;
    });
  }

  @Override
  public boolean heartbeat(String owner, Instant now, Instant aliveSince) {
    return inTransaction("beat for node " + owner, c -> nodes.heartbeat(c, owner, now, aliveSince));
  }

  @Override
  public boolean isAlive(String owner, Instant aliveSince) {
    return inTransaction("check node " + owner, c -> nodes.isAlive(c, owner, aliveSince));
  }

  @Override
  public List<String> incarnations(String nodeId) {
    return inTransaction("list incarnations of " + nodeId, c -> nodes.incarnations(c, nodeId));
  }

  @Override
  public void forgetNode(String owner) {
    inTransaction("forget node " + owner, c -> {
      nodes.forget(c, owner);
      return null;
    });
  }

  @Override
  public int forgetSilentNodes(Instant before) {
    return inTransaction("forget silent nodes", c -> nodes.forgetSilent(c, before));
  }

  @Override
  public void requestRevocation(UUID id, String owner, Instant now) {
    inTransaction("ask " + owner + " to let go of " + id, c -> {
      nodes.requestRevocation(c, id, owner, now);
      return null;
    });
  }

  @Override
  public List<UUID> revocationsFor(String owner) {
    return inTransaction("read revocations", c -> nodes.revocationsFor(c, owner));
  }

  @Override
  public void clearRevocations(Collection<UUID> ids) {
    if (!ids.isEmpty()) {
      inTransaction("clear revocations", c -> {
        nodes.clearRevocations(c, ids);
        return null;
      });
    }
  }

  @Override
  public void recordEarlyConfirmation(UUID id, Instant now) {
    inTransaction("record confirmation of " + id, c -> {
      nodes.recordEarlyConfirmation(c, id, now);
      return null;
    });
  }

  @Override
  public Set<UUID> takeEarlyConfirmations(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return inTransaction("take early confirmations", c -> nodes.takeEarlyConfirmations(c, ids));
  }

  @Override
  public int purgeRequests(Instant before) {
    return inTransaction("purge requests", c -> nodes.purgeRequests(c, before));
  }

  // ---------------------------------------------------------------- changes

  @Override
  public List<Boolean> apply(List<Change> changes) {
    if (changes.isEmpty()) {
      return List.of();
    }
    return inTransaction("record " + changes.size() + " outcome(s)", c -> applyAll(c, changes));
  }

  private List<Boolean> applyAll(Connection c, List<Change> changes) throws SQLException {
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
      moveRows(c, changes, archives, applied, DELETE_LIVE, INSERT_HISTORY, true);
    }
    if (!restores.isEmpty()) {
      moveRows(c, changes, restores, applied, DELETE_HISTORY, INSERT_LIVE, false);
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
    insertAttempts(c, changes, applied);
    List<Boolean> out = new ArrayList<>(applied.length);
    for (boolean b : applied) {
      out.add(b);
    }
    return out;
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

  /** Deletes each row from one table (version-checked), then inserts the new state in the other. */
  /**
   * Archives in one statement: deletes each live row whose version still matches and inserts its
   * history row from the deleted one (payload and other fixed fields never travel back), returning
   * the ids that moved. Used where the dialect can (PostgreSQL); ids sorted for one lock order.
   */
  private static final String ARCHIVE_SET_BASED =
      "WITH input (id, version, next_version, status, attempts, retry_base, last_attempt_at, last_error,"
          + " description, updated_at, finished_at) AS (SELECT * FROM unnest(?::uuid[], ?::bigint[], ?::bigint[],"
          + " ?::text[], ?::int[], ?::int[], ?::bigint[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])),"
          + " moved AS (DELETE FROM herald_notice n USING input i WHERE n.id = i.id AND n.version = i.version"
          + " RETURNING n.id, n.definition, n.payload, i.description, n.idempotency_key, i.status, i.attempts,"
          + " i.retry_base, n.fire_at, i.last_attempt_at, i.last_error, n.created_at, i.updated_at, i.finished_at,"
          + " i.next_version, n.shard, n.target)"
          + " INSERT INTO herald_notice_history (" + HISTORY_COLUMNS + ") SELECT * FROM moved RETURNING id";

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
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          applied[indexOf.get(dialect.getId(rs, "id"))] = true;
        }
      }
    }
  }

  private void moveRows(Connection c, List<Change> changes, List<Integer> indexes, boolean[] applied,
      String deleteSql, String insertSql, boolean toHistory) throws SQLException {
    if (toHistory && dialect.archivesSetBased()) {
      archiveSetBased(c, changes, indexes, applied);
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(deleteSql)) {
      markApplied(executeCounted(ps, indexes, (st, i) -> {
        NoticeRow expected = changes.get(i).expected();
        dialect.setId(st, 1, expected.id());
        st.setLong(2, expected.version());
      }), indexes, applied);
    }
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(insertSql)) {
      for (int i : indexes) {
        if (!applied[i]) {
          continue;
        }
        NoticeRow next = changes.get(i).next();
        if (toHistory) {
          bindHistory(ps, next);
        } else {
          bindLive(ps, next);
        }
        ps.addBatch();
        any = true;
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  private void insertAttempts(Connection c, List<Change> changes, boolean[] applied) throws SQLException {
    boolean any = false;
    try (PreparedStatement ps = c.prepareStatement(INSERT_ATTEMPT)) {
      for (int i = 0; i < changes.size(); i++) {
        Attempt a = changes.get(i).attempt();
        if (a == null || !applied[i]) {
          continue;
        }
        dialect.setId(ps, 1, a.noticeId());
        ps.setInt(2, a.number());
        ps.setLong(3, a.startedAt().toEpochMilli());
        ps.setLong(4, a.duration().toMillis());
        ps.setString(5, a.outcome().name());
        ps.setString(6, dialect.text(Attempt.bound(a.detail())));
        ps.setString(7, a.node());
        ps.addBatch();
        any = true;
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  private static void markApplied(int[] counts, List<Integer> indexes, boolean[] applied) {
    for (int k = 0; k < counts.length; k++) {
      applied[indexes.get(k)] = counts[k] == 1;
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

  private void bindLive(PreparedStatement ps, NoticeRow row) throws SQLException {
    Notice n = row.notice();
    dialect.setId(ps, 1, n.id());
    ps.setString(2, n.definition());
    ps.setString(3, n.payload());
    ps.setString(4, dialect.text(n.description()));
    ps.setString(5, n.idempotencyKey());
    ps.setString(6, n.status().name());
    ps.setInt(7, n.attempts());
    ps.setInt(8, row.retryBase());
    ps.setLong(9, n.fireAt().toEpochMilli());
    ps.setLong(10, n.nextAttemptAt().toEpochMilli());
    setLong(ps, 11, millis(n.lastAttemptAt()));
    ps.setString(12, dialect.text(Attempt.bound(n.lastError())));
    ps.setLong(13, n.createdAt().toEpochMilli());
    ps.setLong(14, n.updatedAt().toEpochMilli());
    ps.setString(15, row.owner());
    ps.setLong(16, row.leaseUntil().toEpochMilli());
    ps.setLong(17, row.version());
    ps.setInt(18, row.shard());
    ps.setString(19, n.target());
  }

  private void bindHistory(PreparedStatement ps, NoticeRow row) throws SQLException {
    Notice n = row.notice();
    dialect.setId(ps, 1, n.id());
    ps.setString(2, n.definition());
    ps.setString(3, n.payload());
    ps.setString(4, dialect.text(n.description()));
    ps.setString(5, n.idempotencyKey());
    ps.setString(6, n.status().name());
    ps.setInt(7, n.attempts());
    ps.setInt(8, row.retryBase());
    ps.setLong(9, n.fireAt().toEpochMilli());
    setLong(ps, 10, millis(n.lastAttemptAt()));
    ps.setString(11, dialect.text(Attempt.bound(n.lastError())));
    ps.setLong(12, n.createdAt().toEpochMilli());
    ps.setLong(13, n.updatedAt().toEpochMilli());
    ps.setLong(14, n.finishedAt().toEpochMilli());
    ps.setLong(15, row.version());
    ps.setInt(16, row.shard());
    ps.setString(17, n.target());
  }

  // ---------------------------------------------------------------- reads

  @Override
  public Optional<NoticeRow> find(UUID id) {
    return inTransaction("find notice " + id, c -> find(c, id, ""));
  }

  /** {@code read}: appended to both selects, e.g. {@link Dialect#readLatest()}. */
  private Optional<NoticeRow> find(Connection c, UUID id, String read) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + LIVE_COLUMNS + " FROM herald_notice WHERE id = ?" + read)) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return Optional.of(readLive(rs));
        }
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + HISTORY_COLUMNS + " FROM herald_notice_history WHERE id = ?" + read)) {
      dialect.setId(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readHistory(rs)) : Optional.empty();
      }
    }
  }

  @Override
  public List<Attempt> attempts(UUID noticeId) {
    return inTransaction("read attempts of " + noticeId, c -> {
      List<Attempt> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT notice_id, number, started_at, duration_ms, outcome, detail, node FROM herald_attempt"
              + " WHERE notice_id = ? ORDER BY number")) {
        dialect.setId(ps, 1, noticeId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new Attempt(
                dialect.getId(rs, "notice_id"),
                rs.getInt("number"),
                Instant.ofEpochMilli(rs.getLong("started_at")),
                Duration.ofMillis(rs.getLong("duration_ms")),
                DeliveryResult.Outcome.valueOf(rs.getString("outcome")),
                rs.getString("detail"),
                rs.getString("node")));
          }
        }
      }
      return out;
    });
  }

  @Override
  public Page<Notice> query(NoticeQuery q) {
    Set<NoticeStatus> statuses = q.statuses().isEmpty() ? Set.of(NoticeStatus.values()) : q.statuses();
    boolean live = statuses.stream().anyMatch(s -> !s.isFinished());
    boolean history = statuses.stream().anyMatch(NoticeStatus::isFinished);
    List<Object> args = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    // Each table gives at most the rows the page can need, newest first (an index walk on
    // created_at), so the union never sorts a whole table.
    // A literal, not a parameter: H2's query cache reuses the first LIMIT ? of a UNION branch when a
    // pooled connection runs the statement again, returning wrong pages.
    int branchLimit = (int) Math.min(Integer.MAX_VALUE, (long) q.offset() + q.limit() + 1);
    String newestFirst = " ORDER BY created_at DESC, id DESC";
    if (live) {
      parts.add("(SELECT " + LIVE_COLUMNS + ", NULL AS finished_at FROM herald_notice"
          + where(q, statuses.stream().filter(s -> !s.isFinished()).toList(), args) + newestFirst
          + " LIMIT " + branchLimit + ")");
    }
    if (history) {
      parts.add("(SELECT id, definition, payload, description, idempotency_key, status, attempts, retry_base,"
          + " fire_at, NULL AS due_at, last_attempt_at, last_error, created_at, updated_at, NULL AS owner,"
          + " 0 AS lease_until, version, shard, target, finished_at FROM herald_notice_history"
          + where(q, statuses.stream().filter(NoticeStatus::isFinished).toList(), args) + newestFirst
          + " LIMIT " + branchLimit + ")");
    }
    String sql = "SELECT * FROM (" + String.join(" UNION ALL ", parts) + ") n"
        + newestFirst + " LIMIT ? OFFSET ?";
    args.add(q.limit() + 1);
    args.add(q.offset());
    return inTransaction("query notices", c -> {
      List<Notice> items = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < args.size(); i++) {
          ps.setObject(i + 1, args.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            items.add(readNotice(rs, true));
          }
        }
      }
      boolean more = items.size() > q.limit();
      return new Page<>(more ? items.subList(0, q.limit()) : items, q.offset(), q.limit(), more);
    });
  }

  private static String where(NoticeQuery q, List<NoticeStatus> statuses, List<Object> args) {
    List<String> terms = new ArrayList<>();
    if (q.definition() != null) {
      terms.add("definition = ?");
      args.add(q.definition());
    }
    if (statuses.size() < (statuses.getFirst().isFinished() ? 3 : 4)) {
      terms.add("status IN (" + String.join(", ", statuses.stream().map(s -> "?").toList()) + ")");
      statuses.forEach(s -> args.add(s.name()));
    }
    if (q.createdFrom() != null) {
      terms.add("created_at >= ?");
      args.add(q.createdFrom().toEpochMilli());
    }
    if (q.createdTo() != null) {
      terms.add("created_at < ?");
      args.add(q.createdTo().toEpochMilli());
    }
    return terms.isEmpty() ? "" : " WHERE " + String.join(" AND ", terms);
  }

  @Override
  public List<NoticeRow> findFinished(String definition, NoticeStatus status, Instant from, Instant to, int limit) {
    return inTransaction("find finished notices", c -> {
      List<NoticeRow> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT " + HISTORY_COLUMNS + " FROM herald_notice_history WHERE definition = ? AND status = ?"
              + " AND finished_at >= ? AND finished_at < ? ORDER BY finished_at LIMIT ?")) {
        ps.setString(1, definition);
        ps.setString(2, status.name());
        ps.setLong(3, from.toEpochMilli());
        ps.setLong(4, to.toEpochMilli());
        ps.setInt(5, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(readHistory(rs));
          }
        }
      }
      return out;
    });
  }

  @Override
  public int purgeHistory(Instant before, int limit) {
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
          "DELETE FROM herald_attempt WHERE notice_id = ?", "DELETE FROM herald_idempotency WHERE notice_id = ?")) {
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

  private NoticeRow readLive(ResultSet rs) throws SQLException {
    String owner = rs.getString("owner");
    return new NoticeRow(readNotice(rs, false), owner, Instant.ofEpochMilli(rs.getLong("lease_until")),
        rs.getLong("version"), rs.getInt("retry_base"), rs.getInt("shard"));
  }

  private NoticeRow readHistory(ResultSet rs) throws SQLException {
    return new NoticeRow(readNotice(rs, true), null, Instant.EPOCH, rs.getLong("version"), rs.getInt("retry_base"),
        rs.getInt("shard"));
  }

  /** Reads the public view; {@code union} marks a row that may carry both due_at and finished_at. */
  private Notice readNotice(ResultSet rs, boolean hasFinished) throws SQLException {
    NoticeStatus status = NoticeStatus.valueOf(rs.getString("status"));
    Instant due = status.isFinished() ? null : instant(rs, "due_at");
    Instant finished = hasFinished && status.isFinished() ? instant(rs, "finished_at") : null;
    return new Notice(
        dialect.getId(rs, "id"),
        rs.getString("definition"),
        rs.getString("payload"),
        rs.getString("description"),
        rs.getString("idempotency_key"),
        status,
        rs.getInt("attempts"),
        instant(rs, "fire_at"),
        due,
        instant(rs, "last_attempt_at"),
        rs.getString("last_error"),
        instant(rs, "created_at"),
        instant(rs, "updated_at"),
        finished,
        rs.getString("target"));
  }

  // ---------------------------------------------------------------- plumbing

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  private static Long millis(Instant t) {
    return t == null ? null : t.toEpochMilli();
  }

  private static void setLong(PreparedStatement ps, int index, Long value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, value);
    }
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Binds one item's parameters of a batched statement. */
  @FunctionalInterface
  private interface RowBinder<T> {
    void bind(PreparedStatement ps, T item) throws SQLException;
  }

  /** A batch came back without per-row update counts; the transaction is redone row by row. */
  private static final class InexactBatchCounts extends RuntimeException {
    InexactBatchCounts() {
      super(null, null, false, false);
    }
  }

  /**
   * Runs the statement once per item, batched, and returns each item's exact update count, which
   * the optimistic checks rely on. If the driver does not report them, the whole transaction is
   * rolled back and redone with one execution per item (see {@link #exactBatchCounts}).
   */
  private <T> int[] executeCounted(PreparedStatement ps, List<T> items, RowBinder<T> binder) throws SQLException {
    int[] counts = new int[items.size()];
    if (!exactBatchCounts) {
      for (int i = 0; i < items.size(); i++) {
        binder.bind(ps, items.get(i));
        counts[i] = ps.executeUpdate();
      }
      return counts;
    }
    for (T item : items) {
      binder.bind(ps, item);
      ps.addBatch();
    }
    int[] batch = ps.executeBatch();
    if (batch.length != items.size()) {
      throw new InexactBatchCounts();
    }
    for (int i = 0; i < batch.length; i++) {
      if (batch[i] < 0) {
        throw new InexactBatchCounts();
      }
      counts[i] = batch[i];
    }
    return counts;
  }

  private void beginReadCommitted(Connection c) throws SQLException {
    if (dialect.beginReadCommitted() != null) {
      try (Statement st = c.createStatement()) {
        st.execute(dialect.beginReadCommitted());
      }
    }
  }

  /** Attempts of a transaction the database rolled back to break a deadlock or a serialization conflict. */
  private static final int DEADLOCK_ATTEMPTS = 3;

  /**
   * Runs {@code work} in one transaction and commits. Every unit of work reads what it needs inside
   * its transaction, so one the database chose as a deadlock victim is simply run again.
   */
  private <T> T inTransaction(String what, SqlWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        try {
          return transaction(work);
        } catch (InexactBatchCounts e) {
          if (exactBatchCounts) {
            exactBatchCounts = false;
            log.warn("Herald: the JDBC driver does not report an update count per batched row ({} {});"
                + " running optimistic updates one by one. For batched updates, turn off the driver's bulk or"
                + " rewritten batches (MariaDB Connector/J: useBulkStmts=false; MySQL Connector/J:"
                + " rewriteBatchedStatements=false)", dialect.name(), what);
          }
          return transaction(work);
        }
      } catch (SQLException e) {
        if (attempt < DEADLOCK_ATTEMPTS && isDeadlockOrConflict(e)) {
          log.debug("Herald: {} rolled back by the database ({}); running it again", what, e.getMessage());
          java.util.concurrent.locks.LockSupport.parkNanos(attempt * 5_000_000L);
          continue;
        }
        throw new StoreException("cannot " + what + ": " + e.getMessage(), e);
      }
    }
  }

  /** SQLState 40001 (serialization failure; MySQL's and MariaDB's deadlock) or 40P01 (PostgreSQL's deadlock). */
  private static boolean isDeadlockOrConflict(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  private <T> T transaction(SqlWork<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      T result;
      try {
        result = work.run(c);
        c.commit();
      } catch (Throwable e) { // an Error must roll back too: restoring auto-commit below would commit
        rollbackQuietly(c, e);
        try {
          c.setAutoCommit(auto);
        } catch (SQLException suppressed) { // the connection is gone: report why the work failed, not that
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      c.setAutoCommit(auto);
      return result;
    }
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed);
    }
  }
}
