package dev.herald.server;

import dev.herald.events.Tenancy;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The tenant an API call about events, event types, endpoints and schedules acts for: the one place
 * the routes of issue 23 ask. On this branch every token acts for the default tenant ({@link
 * Tenancy#DEFAULT}, the id herald-server's tenants give everything that existed before them); where
 * tokens carry a tenant (issue 21), this returns the caller's acting tenant, and a caller of one
 * tenant then sees only its tenant's types, endpoints and events (another tenant's answer 404, as
 * the core's lookups by tenant already do).
 */
final class EventTenant {
  private EventTenant() {}

  static String of(HttpServletRequest request) {
    return Tenancy.DEFAULT;
  }
}
