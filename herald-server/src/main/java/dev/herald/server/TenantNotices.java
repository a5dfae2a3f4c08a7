package dev.herald.server;

import dev.herald.Notice;
import dev.herald.NoticeCriteria;
import dev.herald.NoticeQuery;
import dev.herald.NoticeReports;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The notice search of the API and DEAD-notice recovery narrowed to one tenant: the core's search
 * (live and archived notices, newest first) within the tenant's {@link NoticeOwners#scope}.
 */
final class TenantNotices {
  private final NoticeReports reports;

  TenantNotices(NoticeReports reports) {
    this.reports = reports;
  }

  Page<Notice> query(NoticeQuery q, String tenant) {
    return reports.search(NoticeCriteria.of(q).scope(NoticeOwners.scope(tenant)), q.offset(), q.limit());
  }

  /** The ids of the tenant's DEAD notices of a definition that died in [from, to), oldest first, at most {@code limit}. */
  List<UUID> dead(String definition, Instant from, Instant to, String tenant, int limit) {
    return reports.finishedIds(definition, NoticeStatus.DEAD, from, to, NoticeOwners.scope(tenant), limit);
  }
}
