package dev.herald.server.console;

import dev.herald.server.AuditLog;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/** A user's own account: changing their password (their other sessions end, this one goes on). */
@Controller
@RequestMapping("/console/account")
class ConsoleAccountController {
  private final ConsoleUsers users;
  private final AuditLog audit;

  ConsoleAccountController(ConsoleUsers users, AuditLog audit) {
    this.users = users;
    this.audit = audit;
  }

  @GetMapping
  String account() {
    return "console/account";
  }

  @PostMapping("/password")
  String changePassword(@RequestParam String current, @RequestParam String password, @RequestParam String again,
      Authentication auth, HttpServletRequest request, RedirectAttributes flash) {
    String name = auth.getName();
    if (!users.passwordMatches(name, current)) {
      flash.addFlashAttribute("error", "current: that is not your password");
      return "redirect:/console/account";
    }
    if (!password.equals(again)) {
      flash.addFlashAttribute("error", "again: the new password differs from its repetition");
      return "redirect:/console/account";
    }
    try {
      users.setPassword(name, password);
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
      return "redirect:/console/account";
    }
    // this session goes on under the new stamp; the user's other sessions end at their next request
    ConsoleUser fresh = (ConsoleUser) users.loadUserByUsername(name);
    SecurityContext context = SecurityContextHolder.createEmptyContext();
    context.setAuthentication(UsernamePasswordAuthenticationToken.authenticated(fresh, null, fresh.getAuthorities()));
    SecurityContextHolder.setContext(context);
    request.getSession().setAttribute(HttpSessionSecurityContextRepository.SPRING_SECURITY_CONTEXT_KEY, context);
    request.changeSessionId();
    audit.record(ConsoleModel.caller(auth, request), fresh.tenant(), "user.password-change", name,
        "their other sessions end");
    flash.addFlashAttribute("message", "Password changed; your other sessions ended");
    return "redirect:/console/account";
  }
}
