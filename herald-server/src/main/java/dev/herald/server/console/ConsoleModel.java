package dev.herald.server.console;

import dev.herald.server.Caller;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ModelAttribute;

/** What every console page knows about its user: name, tenant, and whether to show controls that change things. */
@ControllerAdvice(assignableTypes = {ConsoleController.class, ConsoleAdminController.class, ConsoleAccountController.class})
class ConsoleModel {

  @ModelAttribute("username")
  String username(Authentication auth) {
    return auth == null ? null : auth.getName();
  }

  @ModelAttribute("userTenant")
  String userTenant(Authentication auth) {
    return ConsoleSecurity.tenantOf(auth);
  }

  @ModelAttribute("canChange")
  boolean canChange(Authentication auth) {
    return has(auth, ConsoleRole.ADMIN) || has(auth, ConsoleRole.OPERATOR);
  }

  @ModelAttribute("isAdmin")
  boolean isAdmin(Authentication auth) {
    return has(auth, ConsoleRole.ADMIN);
  }

  /** An admin of every tenant: users, tenants and endpoints are theirs to change. */
  @ModelAttribute("isOperatorAdmin")
  boolean isOperatorAdmin(Authentication auth) {
    return ConsoleSecurity.everyTenantAdmin(auth);
  }

  static boolean has(Authentication auth, ConsoleRole role) {
    return auth != null && auth.getAuthorities().stream().anyMatch(a -> a.getAuthority().equals(role.authority()));
  }

  /** The console user as a {@link Caller}: for scoping and the audit log. */
  static Caller caller(Authentication auth, HttpServletRequest request) {
    return new Caller("user " + auth.getName(), ConsoleSecurity.tenantOf(auth), has(auth, ConsoleRole.ADMIN),
        request.getRemoteAddr());
  }
}
