package dev.herald.server;

import dev.herald.Herald;
import dev.herald.Notice;

/**
 * The notices a tenant's recurring schedule makes are the tenant's: recorded in {@link NoticeOwners}
 * in the transaction that fires the slot, so the tenant's notices routes and console see them.
 */
final class RecurringTenants {
  RecurringTenants(Herald herald, NoticeOwners owners) {
    herald.recurring().onFired((connection, schedule, notices) -> {
      if (schedule.tenant().equals(Tenants.DEFAULT)) {
        return;
      }
      // a slot key seen before (a schedule deleted and made again) returns the notice it made then
      java.util.List<java.util.UUID> ids = notices.stream().map(Notice::id).toList();
      java.util.Set<java.util.UUID> known = owners.tenantsOf(ids).keySet();
      owners.write(connection, ids.stream().filter(id -> !known.contains(id)).toList(), schedule.tenant());
    });
  }
}
