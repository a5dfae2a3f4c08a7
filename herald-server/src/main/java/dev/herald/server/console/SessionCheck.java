package dev.herald.server.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Ends a console session at its next request once its user was disabled, removed, or had their role,
 * tenant or password changed (the stored stamp differs from the session's): rights are read from the
 * database on every request, never kept from the login.
 */
final class SessionCheck extends OncePerRequestFilter {
  private static final Logger log = LoggerFactory.getLogger("dev.herald.server.console.login");

  private final ConsoleUsers users;

  SessionCheck(ConsoleUsers users) {
    this.users = users;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth != null && auth.getPrincipal() instanceof ConsoleUser u) {
      Optional<ConsoleUsers.Info> now = users.find(u.getUsername());
      if (now.isEmpty() || !now.get().enabled() || now.get().stamp() != u.stamp()) {
        HttpSession session = request.getSession(false);
        if (session != null) {
          session.invalidate();
        }
        SecurityContextHolder.clearContext();
        log.info("console session of {} ended: the user was {} since it began", u.getUsername(),
            now.isEmpty() ? "removed" : !now.get().enabled() ? "disabled" : "changed (role, tenant or password)");
        if (request.getRequestURI().startsWith("/console")) {
          response.sendRedirect("/console/login?expired");
        } else {
          response.sendError(HttpServletResponse.SC_UNAUTHORIZED);
        }
        return;
      }
    }
    chain.doFilter(request, response);
  }
}
