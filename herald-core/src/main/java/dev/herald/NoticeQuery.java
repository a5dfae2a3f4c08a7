package dev.herald;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * A search over live and archived notices, newest first. Every criterion is optional.
 *
 * @param definition only this definition
 * @param statuses only these statuses; empty for all
 * @param createdFrom created at or after (inclusive)
 * @param createdTo created before (exclusive)
 * @param offset items to skip
 * @param limit page size, 1 to {@value #MAX_LIMIT}
 */
public record NoticeQuery(
    String definition, Set<NoticeStatus> statuses, Instant createdFrom, Instant createdTo, int offset, int limit) {

  public static final int MAX_LIMIT = 1000;

  public NoticeQuery {
    statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
    if (offset < 0) {
      throw new InvalidInputException("offset", "must be >= 0, was " + offset);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidInputException("limit", "must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    if (createdFrom != null && createdTo != null && !createdFrom.isBefore(createdTo)) {
      throw new InvalidInputException("createdTo", "must be after createdFrom");
    }
  }

  /** All notices, first page of 50. */
  public static NoticeQuery all() {
    return new NoticeQuery(null, Set.of(), null, null, 0, 50);
  }

  public NoticeQuery definition(String name) {
    return new NoticeQuery(name, statuses, createdFrom, createdTo, offset, limit);
  }

  public NoticeQuery statuses(NoticeStatus first, NoticeStatus... more) {
    return new NoticeQuery(definition, EnumSet.of(first, more), createdFrom, createdTo, offset, limit);
  }

  public NoticeQuery createdBetween(Instant from, Instant to) {
    return new NoticeQuery(definition, statuses, from, to, offset, limit);
  }

  public NoticeQuery page(int pageOffset, int pageLimit) {
    return new NoticeQuery(definition, statuses, createdFrom, createdTo, pageOffset, pageLimit);
  }
}
