package dev.herald.server.console;

import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ModelAttribute;

/** What every console page knows about its user: name, and whether to show controls that change things. */
@ControllerAdvice(assignableTypes = {ConsoleController.class, ConsoleAdminController.class})
class ConsoleModel {

  @ModelAttribute("username")
  String username(Authentication auth) {
    return auth == null ? null : auth.getName();
  }

  @ModelAttribute("canChange")
  boolean canChange(Authentication auth) {
    return has(auth, ConsoleRole.ADMIN) || has(auth, ConsoleRole.OPERATOR);
  }

  @ModelAttribute("isAdmin")
  boolean isAdmin(Authentication auth) {
    return has(auth, ConsoleRole.ADMIN);
  }

  static boolean has(Authentication auth, ConsoleRole role) {
    return auth != null && auth.getAuthorities().stream().anyMatch(a -> a.getAuthority().equals(role.authority()));
  }
}
