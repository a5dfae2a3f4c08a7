package dev.herald;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a search over live and archived notices keeps ({@link NoticeReports#search}); every
 * criterion is optional, and all those given must hold. Build from {@link #all()} with the withers.
 *
 * @param definition only this definition
 * @param statuses only these statuses; empty for all
 * @param createdFrom created at or after (inclusive)
 * @param createdTo created before (exclusive); a range that holds no instant matches nothing
 * @param idempotencyKeys the idempotency key is one of these; empty: any key, or none
 * @param idempotencyKeyEnding or the idempotency key ends with this (with {@code idempotencyKeys} only)
 * @param descriptionContains the description contains this, ignoring case
 * @param scope only the notices of this scope
 */
public record NoticeCriteria(String definition, Set<NoticeStatus> statuses, Instant createdFrom, Instant createdTo,
    Set<String> idempotencyKeys, String idempotencyKeyEnding, String descriptionContains, NoticeScope scope) {

  public NoticeCriteria {
    statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
    idempotencyKeys = idempotencyKeys == null ? Set.of() : Set.copyOf(idempotencyKeys);
    if (idempotencyKeyEnding != null && idempotencyKeys.isEmpty()) {
      throw new InvalidInputException("idempotencyKeyEnding", "is an alternative to idempotencyKeys, which are none");
    }
  }

  /** Every notice. */
  public static NoticeCriteria all() {
    return new NoticeCriteria(null, Set.of(), null, null, Set.of(), null, null, null);
  }

  /** The criteria of a query (its page aside). */
  public static NoticeCriteria of(NoticeQuery q) {
    return all().definition(q.definition()).statuses(q.statuses()).createdBetween(q.createdFrom(), q.createdTo());
  }

  public NoticeCriteria definition(String name) {
    return new NoticeCriteria(name, statuses, createdFrom, createdTo, idempotencyKeys, idempotencyKeyEnding,
        descriptionContains, scope);
  }

  public NoticeCriteria statuses(Set<NoticeStatus> only) {
    return new NoticeCriteria(definition, only, createdFrom, createdTo, idempotencyKeys, idempotencyKeyEnding,
        descriptionContains, scope);
  }

  public NoticeCriteria createdBetween(Instant from, Instant to) {
    return new NoticeCriteria(definition, statuses, from, to, idempotencyKeys, idempotencyKeyEnding,
        descriptionContains, scope);
  }

  /** The idempotency key is one of {@code keys}, or (if not null) ends with {@code ending}. */
  public NoticeCriteria idempotencyKeys(Set<String> keys, String ending) {
    return new NoticeCriteria(definition, statuses, createdFrom, createdTo, keys, ending, descriptionContains, scope);
  }

  public NoticeCriteria descriptionContains(String text) {
    return new NoticeCriteria(definition, statuses, createdFrom, createdTo, idempotencyKeys, idempotencyKeyEnding,
        text, scope);
  }

  public NoticeCriteria scope(NoticeScope only) {
    return new NoticeCriteria(definition, statuses, createdFrom, createdTo, idempotencyKeys, idempotencyKeyEnding,
        descriptionContains, only);
  }
}
