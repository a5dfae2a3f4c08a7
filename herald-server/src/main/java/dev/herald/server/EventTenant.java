package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The tenant an API call about events, event types and event endpoints acts for: the caller's
 * ({@link Caller#actingTenant()}: a token's tenant, or the default tenant for a token of every
 * tenant). Event types, endpoints and events are looked up within it, so another tenant's answer
 * 404, as ones that do not exist.
 */
final class EventTenant {
  private EventTenant() {}

  static String of(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    if (caller == null) {
      throw new IllegalStateException("no caller on " + request.getRequestURI() + ": event routes need a token");
    }
    return caller.actingTenant();
  }
}
