package dev.herald.server.console;

import dev.herald.Notice;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeReports;
import dev.herald.NoticeStatus;
import dev.herald.server.NoticeOwners;
import dev.herald.server.TenantKeys;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The console's notice search over live and archived notices, newest first: definition, status,
 * creation time range, idempotency key, and text in the description (case-insensitive), read through
 * the core's {@link NoticeReports#search}; searching by id is a direct lookup, not done here.
 */
final class NoticeSearch {
  /** Most notices a bulk action touches at once. */
  static final int MAX_BULK = 10_000;

  /**
   * What to look for; every field optional.
   *
   * @param text part of the description
   */
  record Criteria(String definition, NoticeStatus status, Instant from, Instant to, String key, String text,
      String tenant) {
    Criteria {
      definition = blankToNull(definition);
      key = blankToNull(key);
      text = blankToNull(text);
    }

    Criteria(String definition, NoticeStatus status, Instant from, Instant to, String key, String text) {
      this(definition, status, from, to, key, text, null);
    }

    /** The same search within one tenant's notices (null: every tenant's). */
    Criteria within(String tenantId) {
      return new Criteria(definition, status, from, to, key, text, tenantId);
    }
  }

  /** One row of the results table. */
  record Row(UUID id, String definition, NoticeStatus status, int attempts, Instant fireAt, Instant createdAt,
      String description, String lastError) {
    /** The error's first line (e.g. {@code HTTP 500 Internal Server Error}); the list stays readable. */
    public String lastErrorLine() {
      return lastError == null ? "" : lastError.lines().findFirst().orElse("");
    }
  }

  private final NoticeReports reports;

  NoticeSearch(NoticeReports reports) {
    this.reports = reports;
  }

  /** One page; {@code limit + 1} rows are read so the caller knows whether there is a next page. */
  List<Row> page(Criteria c, int offset, int limit) {
    return reports.search(criteria(c), offset, limit + 1).items().stream().map(NoticeSearch::row).toList();
  }

  /** The ids of every match, up to {@link #MAX_BULK} + 1 (so that "too many" can be told). */
  List<UUID> ids(Criteria c) {
    return reports.searchIds(criteria(c), MAX_BULK + 1);
  }

  private static NoticeCriteria criteria(Criteria c) {
    NoticeCriteria out = NoticeCriteria.all().definition(c.definition())
        .statuses(c.status() == null ? Set.of() : Set.of(c.status())).createdBetween(c.from(), c.to())
        .descriptionContains(c.text());
    if (c.key() != null) {
      // a key of a tenant other than the default is stored in the tenant's namespace
      out = c.tenant() == null ? out.idempotencyKeys(Set.of(c.key()), TenantKeys.anyTenantEnding(c.key()))
          : out.idempotencyKeys(new HashSet<>(List.of(c.key(), TenantKeys.stored(c.tenant(), c.key()))), null);
    }
    return c.tenant() == null ? out : out.scope(NoticeOwners.scope(c.tenant()));
  }

  private static Row row(Notice n) {
    return new Row(n.id(), n.definition(), n.status(), n.attempts(), n.fireAt(), n.createdAt(), n.description(),
        n.lastError());
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
