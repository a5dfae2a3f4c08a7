package dev.herald.spi;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
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
 */
public interface NoticeStore {

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

  /** Leases up to {@code claim.limit()} due, unowned (or expired) notices, oldest due first. */
  List<NoticeRow> claim(Claim claim);

  /** Counts live notices due by {@code now}, stopping at {@code cap} (so the count stays cheap). */
  int countDue(Instant now, int cap);

  /** Extends the owner's leases; returns the ids it still owns. */
  Set<UUID> renewLeases(String owner, Collection<UUID> ids, Instant leaseUntil);

  /** Which of {@code ids} are stored and leased by {@code owner} (a read: it changes nothing). */
  Set<UUID> stillLeased(String owner, Collection<UUID> ids);

  /**
   * Frees every lease {@code owner} holds (a restarted node recovering its previous life's work).
   * Returns how many notices were freed.
   */
  int releaseAll(String owner, Instant now);

  /** Applies the changes in one transaction; element i tells whether change i applied. */
  List<Boolean> apply(List<Change> changes);

  /** A live or archived notice. */
  Optional<NoticeRow> find(UUID id);

  /** The attempt log of a notice, oldest first. */
  List<Attempt> attempts(UUID noticeId);

  Page<Notice> query(NoticeQuery query);

  /** Archived notices of a definition with the given status, finished within [from, to). */
  List<NoticeRow> findFinished(String definition, NoticeStatus status, Instant from, Instant to, int limit);

  /** Deletes up to {@code limit} archived notices finished before {@code before}, with their attempts. */
  int purgeHistory(Instant before, int limit);
}
