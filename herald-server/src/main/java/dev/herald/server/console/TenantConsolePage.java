package dev.herald.server.console;

import dev.herald.events.Tenancy;
import org.springframework.security.core.Authentication;

/**
 * A console page about one tenant's things (events, recurring schedules): the tenant it shows (what
 * its layout needs to know about the user is {@link ConsoleModel}'s).
 */
abstract class TenantConsolePage {

  /** The tenant the console shows: the user's, or the default tenant's for a user of every tenant (as the API). */
  static String tenant(Authentication auth) {
    String t = ConsoleSecurity.tenantOf(auth);
    return t == null ? Tenancy.DEFAULT : t;
  }
}
