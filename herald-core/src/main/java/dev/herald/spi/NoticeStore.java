package dev.herald.spi;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.NoticeReports;
import dev.herald.Page;
import java.sql.Connection;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Durable storage of definitions, notices, attempts and history. The engine's only way to the
 * database. Every method but {@link #insert} runs and commits its own transaction; every change to
 * a notice is optimistic (see {@link Change}). Failures surface as {@link dev.herald.StoreException}.
 * It answers the reads of {@link NoticeReports} too (counts, searches, chart series), so that no part
 * of Herald but the store reads its tables.
 */
public interface NoticeStore extends NoticeReports {

  /** Creates or upgrades the schema to the latest version. Safe to call on every start. */
  void migrate();

  void saveDefinition(NoticeDefinition definition, Instant now);

  Optional<NoticeDefinition> findDefinition(String name);

  List<NoticeDefinition> listDefinitions();

  boolean deleteDefinition(String name);

  /**
   * Writes a new notice with the caller's connection, inside the caller's transaction, without
   * committing. If its idempotency key is taken for its definition, writes nothing and returns the
   * existing notice.
   */
  InsertResult insert(Connection connection, NoticeRow row);

  /**
   * {@link #insert} of each row, in order, with the caller's connection and without committing; one
   * result per row. A store may write the rows in fewer statements (the JDBC store writes those
   * without an idempotency key as multi-row inserts). The default inserts them one by one.
   */
  default java.util.List<InsertResult> insertAll(Connection connection, java.util.List<NoticeRow> rows) {
    java.util.List<InsertResult> out = new java.util.ArrayList<>(rows.size());
    for (NoticeRow row : rows) {
      out.add(insert(connection, row));
    }
    return out;
  }

  /**
   * Puts a notice just inserted with {@code connection} at the end of its ordering key's line, inside
   * the caller's transaction. From then on a claim takes it only once every notice before it in the
   * line has left the live table (delivered, cancelled, or DEAD when {@code holdOnDead} is false for
   * that earlier notice), and while no other notice of the line is held. Enqueues of the same key
   * wait for each other's commit, so the line's order is the order of commit.
   */
  default void enterOrder(Connection connection, java.util.UUID noticeId, String orderingKey, boolean holdOnDead) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not support ordered delivery");
  }

  /**
   * Up to {@code max} alerts of the outbox (written by {@link #apply} with the {@link Change}s that
   * raised them), oldest first, read with the caller's connection and locked until its transaction
   * ends; alerts another transaction holds are skipped where the database can, else waited for.
   */
  default List<dev.herald.PendingAlert> lockAlerts(Connection connection, int max) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no alert outbox");
  }

  /** Deletes these alerts with the caller's connection, without committing; returns how many were still there. */
  default int deleteAlerts(Connection connection, Collection<dev.herald.PendingAlert> consumed) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no alert outbox");
  }

  /**
   * Leases up to {@code claim.limit()} due notices that are unowned or held by a dead node (no
   * heartbeat since {@link Claim#aliveSince()}), oldest due first.
   */
  List<NoticeRow> claim(Claim claim);

  /** Counts live notices due by {@code now}, stopping at {@code cap} (so the count stays cheap). */
  int countDue(Instant now, int cap);


  /**
   * Moves notices pre-claimed in a caller's transaction from their provisional owner to {@code
   * owner}, each to the next version; returns the ids moved. A notice rolled back, or claimed by
   * another node once its provisional hold ran out, is not moved.
   */
  Set<UUID> adopt(String provisional, String owner, Collection<UUID> ids);

  /**
   * Frees every lease {@code owner} holds (a restarted node recovering its previous life's work).
   * Returns how many notices were freed.
   */
  int releaseAll(String owner, Instant now);

  /**
   * {@link #releaseAll} of the notices due by {@code dueBy}. A node holds only notices due within
   * its look-ahead of when it took them, so {@code dueBy} = now + look-ahead frees all it held, and a
   * store need read only the due end of its claim index, however many future notices wait beyond
   * (a restart beside millions of them stays fast). A held notice due later, if any, is left as it
   * is and claimed when due, its owner being forgotten. The default frees them all.
   */
  default int releaseHeld(String owner, Instant now, Instant dueBy) {
    return releaseAll(owner, now);
  }

  // ---------------------------------------------------------------- node liveness

  /**
   * Records a new incarnation {@code owner} of node {@code nodeId}, alive as of {@code now}.
   * Idempotent: registering the same owner again (after a lost answer) replaces its row.
   */
  void registerNode(String owner, String nodeId, Instant now);

  /**
   * Refreshes {@code owner}'s heartbeat to {@code now}, unless it lapsed (its last beat is older than
   * {@code aliveSince}) or was forgotten: then returns false and changes nothing, because other nodes
   * may already have taken its notices.
   */
  boolean heartbeat(String owner, Instant now, Instant aliveSince);

  /** Whether {@code owner} beat at or after {@code aliveSince}. */
  boolean isAlive(String owner, Instant aliveSince);

  /** The incarnation tokens recorded for {@code nodeId}. */
  List<String> incarnations(String nodeId);

  /** Forgets incarnation {@code owner} (after {@link #releaseAll} on a graceful stop or a restart). */
  void forgetNode(String owner);

  /** Forgets incarnations silent since before {@code before}; their notices are claimable either way. */
  int forgetSilentNodes(Instant before);

  // ---------------------------------------------------------------- requests between nodes

  /** Asks {@code owner} to let go of notice {@code id} it holds (an operator on another node wants to change it). */
  void requestRevocation(UUID id, String owner, Instant now);

  /** The notices other nodes asked {@code owner} to let go of. */
  List<UUID> revocationsFor(String owner);

  void clearRevocations(Collection<UUID> ids);

  /**
   * Records a confirmation that arrived while notice {@code id} is {@code IN_FLIGHT} (being
   * delivered, perhaps): the next {@link Change} of it that has an {@link Change#ifConfirmed()} form
   * consumes it. Returns false, recording nothing, if the notice is not {@code IN_FLIGHT} (any more):
   * the caller reads it again. Must exclude a concurrent {@link #apply} of the same notice (the JDBC
   * store locks its row), so that a confirmation is either seen by that change or sees its result.
   */
  boolean recordEarlyConfirmation(UUID id, Instant now);

  /**
   * The {@code IN_FLIGHT} notices held by any of {@code owners} and due by {@code dueBy}, at most
   * {@code limit}, oldest due first: what a node's incarnations own, to compare with what its memory
   * holds (a claim or a write whose answer was lost may leave rows held by nobody's memory).
   * Provisional owners are named explicitly if wanted. Read through the claim's due index, like
   * {@link #releaseHeld}.
   */
  List<NoticeRow> heldBy(Collection<String> owners, Instant dueBy, int limit);

  /** Removes early confirmations and revocation requests older than {@code before} (their notices moved on). */
  int purgeRequests(Instant before);

  /**
   * Applies the changes in one transaction; element i tells what became of change i. Either every
   * answered change is as answered, or the call throws and none was written, or (a {@link
   * dev.herald.StoreException} whose {@link dev.herald.StoreException#outcomeUnknown()} is true) the
   * transaction may or may not have committed as a whole.
   */
  List<Applied> apply(List<Change> changes);

  /** A live or archived notice. */
  Optional<NoticeRow> find(UUID id);

  /** The attempt log of a notice, oldest first. */
  List<Attempt> attempts(UUID noticeId);

  /** {@link #search} with the query's criteria and page. */
  default Page<Notice> query(NoticeQuery query) {
    return search(NoticeCriteria.of(query), query.offset(), query.limit());
  }

  /** Archived notices of a definition with the given status, finished within [from, to). */
  List<NoticeRow> findFinished(String definition, NoticeStatus status, Instant from, Instant to, int limit);

  /** Deletes up to {@code limit} archived notices finished before {@code before}, with their attempts. */
  int purgeHistory(Instant before, int limit);
}
