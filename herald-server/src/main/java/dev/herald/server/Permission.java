package dev.herald.server;

/**
 * What a caller may do, API and console alike. A role grants a set of them ({@link Role#grants()},
 * {@link dev.herald.server.console.ConsoleRole#grants()}); {@link Access} answers whether a caller
 * has one. The last four are {@linkplain #everyTenant() of every tenant}: what tenants share, only
 * for callers of every tenant.
 */
public enum Permission {
  /** See notices, events, definitions, schedules, event types and endpoints (of its tenant). */
  READ("reads"),
  /** Create notices and publish events. */
  CREATE_NOTICES("creates notices"),
  /** Edit, reschedule, resend, cancel, confirm and recover notices. */
  ACT_ON_NOTICES("acts on notices"),
  /** Pause and resume recurring schedules. */
  ACT_ON_SCHEDULES("pauses and resumes schedules"),
  /**
   * Create, change and delete definitions, recurring schedules, event types and event endpoints (their
   * secrets, enabling, replays).
   */
  MANAGE_DEFINITIONS("changes definitions"),
  /** See definitions' and endpoints' URLs unmasked (they often carry credentials) and the attempts' full details. */
  READ_TARGETS("reads targets"),
  /** Erase notices and events before their retention ends. */
  EXPUNGE("expunges"),
  /** Create, list and revoke API tokens (of its tenant). */
  MANAGE_TOKENS("manages API tokens"),
  /** Read the audit log (of its tenant). */
  READ_AUDIT("reads the audit log"),
  /** Create and change tenants and their grants. */
  MANAGE_TENANTS("changes tenants", true),
  /** Disable, enable and rate-limit endpoints, which every tenant shares. */
  MANAGE_ENDPOINTS("changes an endpoint every tenant shares", true),
  /** Create and change console users. */
  MANAGE_USERS("changes console users", true),
  /** The actuator's endpoints other than health and prometheus. */
  INSPECT_SERVER("inspects the server", true);

  private final String what;
  private final boolean everyTenant;

  Permission(String what) {
    this(what, false);
  }

  Permission(String what, boolean everyTenant) {
    this.what = what;
    this.everyTenant = everyTenant;
  }

  /** What a route needing it does, for refusals: {@code changes tenants}. */
  public String what() {
    return what;
  }

  /** Whether only callers of every tenant may have it, whatever their role grants. */
  public boolean everyTenant() {
    return everyTenant;
  }
}
