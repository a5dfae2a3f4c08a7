package dev.herald.server.console;

import dev.herald.events.Tenancy;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.ModelAttribute;

/**
 * A console page about one tenant's things (events, recurring schedules): the tenant it shows, and
 * what its layout needs to know about the user (name, whether to show controls that change things).
 */
abstract class TenantConsolePage {

  /** The tenant the console shows: the user's, or the default tenant's for a user of every tenant (as the API). */
  static String tenant(Authentication auth) {
    String t = ConsoleSecurity.tenantOf(auth);
    return t == null ? Tenancy.DEFAULT : t;
  }

  @ModelAttribute("username")
  String username(Authentication auth) {
    return auth == null ? null : auth.getName();
  }

  @ModelAttribute("canChange")
  boolean canChange(Authentication auth) {
    return ConsoleModel.has(auth, ConsoleRole.ADMIN) || ConsoleModel.has(auth, ConsoleRole.OPERATOR);
  }

  @ModelAttribute("isAdmin")
  boolean isAdmin(Authentication auth) {
    return ConsoleModel.has(auth, ConsoleRole.ADMIN);
  }
}
