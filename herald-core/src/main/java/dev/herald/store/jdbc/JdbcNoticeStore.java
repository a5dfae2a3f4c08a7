package dev.herald.store.jdbc;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.AttemptSample;
import dev.herald.NoticeCounts;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeScope;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.PendingAlert;
import dev.herald.spi.Applied;
import dev.herald.spi.Change;
import dev.herald.spi.Claim;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@link NoticeStore} over JDBC. Thread-safe; each call borrows a connection from the pool. The
 * work is done by parts named for what they do, over one {@link Transactions} and one dialect:
 * {@link DefinitionsTable}, {@link NoticeIntake} (enqueue and idempotency keys), {@link Claims},
 * {@link OutcomeWrites} with {@link Archive}, {@link NoticeSearch}, {@link NoticeTallies} (counts and
 * chart series), {@link HistoryPurge}, and
 * {@link NodeStatements} (node liveness and the requests nodes leave each other), {@link
 * OrderingStatements} (ordered delivery per key).
 */
public final class JdbcNoticeStore implements NoticeStore {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private final Transactions tx;
  private final NodeStatements nodes;
  private final DefinitionsTable definitions;
  private final NoticeSearch search;
  private final NoticeTallies tallies;
  private final NoticeIntake intake;
  private final Claims claims;
  private final OutcomeWrites outcomes;
  private final HistoryPurge purge;
  private final OrderingStatements ordering;
  private final AlertOutbox alerts;

  public JdbcNoticeStore(DataSource dataSource, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
    this.tx = new Transactions(dataSource, dialect);
    this.nodes = new NodeStatements(dialect);
    NoticeRows rows = new NoticeRows(dialect);
    this.definitions = new DefinitionsTable(dialect, tx, rows);
    this.search = new NoticeSearch(dialect, tx, rows);
    this.tallies = new NoticeTallies(dialect, tx, rows);
    this.intake = new NoticeIntake(dialect, tx, rows, search);
    this.ordering = new OrderingStatements(dialect);
    this.claims = new Claims(dialect, tx, rows, ordering);
    this.alerts = new AlertOutbox(dialect);
    this.outcomes = new OutcomeWrites(dialect, tx, rows, new Archive(dialect, tx, rows), alerts, nodes);
    this.purge = new HistoryPurge(dialect, tx, rows, ordering);
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
    definitions.saveDefinition(d, now);
  }

  @Override
  public Optional<NoticeDefinition> findDefinition(String name) {
    return definitions.findDefinition(name);
  }

  @Override
  public List<NoticeDefinition> listDefinitions() {
    return definitions.listDefinitions();
  }

  @Override
  public boolean deleteDefinition(String name) {
    return definitions.deleteDefinition(name);
  }

  // ---------------------------------------------------------------- intake

  @Override
  public InsertResult insert(Connection c, NoticeRow row) {
    return intake.insert(c, row);
  }

  @Override
  public List<InsertResult> insertAll(Connection c, List<NoticeRow> rows) {
    return intake.insertAll(c, rows);
  }

  @Override
  public List<PendingAlert> lockAlerts(Connection c, int max) {
    return alerts.lock(c, max);
  }

  @Override
  public int deleteAlerts(Connection c, Collection<PendingAlert> consumed) {
    return alerts.delete(c, consumed);
  }

  @Override
  public void enterOrder(Connection c, UUID noticeId, String orderingKey, boolean holdOnDead) {
    try {
      ordering.enter(c, noticeId, orderingKey, holdOnDead);
    } catch (java.sql.SQLException e) {
      throw new dev.herald.StoreException(
          "cannot order notice " + noticeId + " by key " + orderingKey + ": " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- claims and leases

  @Override
  public List<NoticeRow> claim(Claim claim) {
    return claims.claim(claim);
  }

  @Override
  public int countDue(Instant now, int cap) {
    return claims.countDue(now, cap);
  }

  @Override
  public Set<UUID> adopt(String provisional, String owner, Collection<UUID> ids) {
    return claims.adopt(provisional, owner, ids);
  }

  @Override
  public List<NoticeRow> heldBy(Collection<String> owners, Instant dueBy, int limit) {
    return claims.heldBy(owners, dueBy, limit);
  }

  @Override
  public int releaseAll(String owner, Instant now) {
    return claims.releaseAll(owner, now);
  }

  @Override
  public int releaseHeld(String owner, Instant now, Instant dueBy) {
    return claims.releaseHeld(owner, now, dueBy);
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
    replacingConcurrently(() -> inTransaction("ask " + owner + " to let go of " + id, c -> {
      nodes.requestRevocation(c, id, owner, now);
      return null;
    }));
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
  public boolean recordEarlyConfirmation(UUID id, Instant now) {
    return replacingConcurrently(
        () -> inTransaction("record confirmation of " + id, c -> nodes.recordEarlyConfirmation(c, id, now)));
  }

  /**
   * Runs a delete-then-insert of a request row again when a concurrent one inserted the same key
   * between the two (two operators asking at once): the second run replaces that row.
   */
  private <T> T replacingConcurrently(java.util.function.Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (dev.herald.StoreException e) {
        if (attempt == 3 || !(e.getCause() instanceof java.sql.SQLException sql) || !dialect.isDuplicateKey(sql)) {
          throw e;
        }
      }
    }
  }

  @Override
  public int purgeRequests(Instant before) {
    return inTransaction("purge requests", c -> nodes.purgeRequests(c, before));
  }

  // ---------------------------------------------------------------- outcomes

  @Override
  public List<Applied> apply(List<Change> changes) {
    return outcomes.apply(changes);
  }

  // ---------------------------------------------------------------- reads and retention

  @Override
  public Optional<NoticeRow> find(UUID id) {
    return search.find(id);
  }

  @Override
  public List<Attempt> attempts(UUID noticeId) {
    return search.attempts(noticeId);
  }

  @Override
  public Page<Notice> search(NoticeCriteria criteria, int offset, int limit) {
    return search.search(criteria, offset, limit);
  }

  @Override
  public List<UUID> searchIds(NoticeCriteria criteria, int limit) {
    return search.searchIds(criteria, limit);
  }

  @Override
  public List<UUID> finishedIds(String definition, NoticeStatus status, Instant from, Instant to, NoticeScope scope,
      int limit) {
    return search.finishedIds(definition, status, from, to, scope, limit);
  }

  // ---------------------------------------------------------------- counts and chart series

  @Override
  public Map<String, NoticeCounts> countByDefinition(Instant now) {
    return tallies.countByDefinition(now);
  }

  @Override
  public long countDead(Instant since, int cap) {
    return tallies.countDead(since, cap);
  }

  @Override
  public long countLive(NoticeScope scope) {
    return tallies.countLive(scope);
  }

  @Override
  public List<AttemptSample> attemptSamples(Instant from, Instant to, String definition, NoticeScope scope,
      int max) {
    return tallies.attemptSamples(from, to, definition, scope, max);
  }

  @Override
  public long[] backlogAt(List<Instant> instants, String definition, NoticeScope scope) {
    return tallies.backlogAt(instants, definition, scope);
  }

  @Override
  public Set<UUID> existing(Collection<UUID> ids) {
    return tallies.existing(ids);
  }

  @Override
  public List<NoticeRow> findFinished(String definition, NoticeStatus status, Instant from, Instant to, int limit) {
    return search.findFinished(definition, status, from, to, limit);
  }

  @Override
  public int purgeHistory(Instant before, int limit) {
    return purge.purgeHistory(before, limit);
  }

  private <T> T inTransaction(String what, Transactions.SqlWork<T> work) {
    return tx.inTransaction(what, work);
  }
}
