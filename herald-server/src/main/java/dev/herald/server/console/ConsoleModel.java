package dev.herald.server.console;

import dev.herald.server.Access;
import dev.herald.server.Caller;
import dev.herald.server.Permission;
import jakarta.servlet.http.HttpServletRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ModelAttribute;

/**
 * What every console page knows about its user: name, tenant, and what they may do (which controls
 * to show: the server checks again, {@link ConsoleSecurity}, whatever the page showed).
 */
@ControllerAdvice(assignableTypes = {ConsoleController.class, ConsoleAdminController.class,
    ConsoleAccountController.class, TenantConsolePage.class})
class ConsoleModel {

  @ModelAttribute("username")
  String username(Authentication auth) {
    return auth == null ? null : auth.getName();
  }

  @ModelAttribute("userTenant")
  String userTenant(Authentication auth) {
    return ConsoleSecurity.tenantOf(auth);
  }

  /** Permission name to whether the user has it: {@code ${may['MANAGE_TOKENS']}}. */
  @ModelAttribute("may")
  Map<String, Boolean> may(Authentication auth) {
    Caller caller = caller(auth, (String) null);
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (Permission p : Permission.values()) {
      out.put(p.name(), Access.may(caller, p));
    }
    return out;
  }

  /** The console user as a {@link Caller}: for scoping and the audit log. */
  static Caller caller(Authentication auth, HttpServletRequest request) {
    return caller(auth, request.getRemoteAddr());
  }

  /** The console user as a {@link Caller}; null if {@code auth} is not a console user's. */
  static Caller caller(Authentication auth, String address) {
    if (auth == null || !(auth.getPrincipal() instanceof ConsoleUser u)) {
      return null;
    }
    return new Caller("user " + u.getUsername(), u.tenant(), Access.permissions(u.role().grants(), u.tenant()),
        address);
  }
}
