package dev.herald.server.console;

import dev.herald.AlertPolicy;
import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.server.ApiTokens;
import dev.herald.server.EndpointControl;
import dev.herald.server.Role;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/** Definitions and endpoints (everyone sees them, admins change them), API tokens and users (admins). */
@Controller
@RequestMapping("/console")
class ConsoleAdminController {
  private final Herald herald;
  private final ApiTokens tokens;
  private final ConsoleUsers users;
  private final NoticeSearch search;
  private final EndpointControl endpointControl;

  ConsoleAdminController(Herald herald, ApiTokens tokens, ConsoleUsers users, DataSource dataSource,
      EndpointControl endpointControl) {
    this.herald = herald;
    this.tokens = tokens;
    this.users = users;
    this.search = new NoticeSearch(dataSource);
    this.endpointControl = endpointControl;
  }

  @GetMapping("/definitions")
  String definitions(Model model) {
    model.addAttribute("definitions", herald.definitions().list());
    return "console/definitions";
  }

  @GetMapping("/definitions/{name}")
  String definition(@PathVariable String name, Model model) {
    NoticeDefinition d = herald.definitions().find(name).orElse(null);
    if (d == null) {
      model.addAttribute("error", "No definition named " + name);
      return "console/denied";
    }
    Map<String, String> options = new LinkedHashMap<>();
    d.options().forEach((k, v) -> options.put(k, Masking.option(k, v)));
    model.addAttribute("d", d);
    model.addAttribute("options", options);
    return "console/definition";
  }

  @PostMapping("/definitions/{name}")
  String saveDefinition(@PathVariable String name, @RequestParam String retry, @RequestParam int maxAttempts,
      @RequestParam String alertPolicy, @RequestParam(required = false) String description, RedirectAttributes flash) {
    NoticeDefinition d = herald.definitions().find(name).orElse(null);
    if (d == null) {
      flash.addFlashAttribute("error", "No definition named " + name);
      return "redirect:/console/definitions";
    }
    try {
      NoticeDefinition changed = d.toBuilder().retry(retry).maxAttempts(maxAttempts)
          .alert(AlertPolicy.parse(alertPolicy)).description(description == null || description.isBlank() ? null
              : description).build();
      herald.definitions().save(changed);
      flash.addFlashAttribute("message", "Definition " + name + " saved");
    } catch (HeraldException | IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/definitions/" + name;
  }

  /** Each definition's receiver: its circuit, and the last error of its failing notices. */
  @GetMapping("/endpoints")
  String endpoints(Model model) {
    List<Map<String, Object>> rows = herald.definitions().list().stream().map(d -> {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("definition", d.name());
      r.put("channel", d.channel());
      r.put("target", d.target());
      r.put("circuit", circuit(d.name()));
      var failing = search.page(new NoticeSearch.Criteria(d.name(), NoticeStatus.FAILED, null, null, null, null), 0, 1);
      if (failing.isEmpty()) {
        failing = search.page(new NoticeSearch.Criteria(d.name(), NoticeStatus.DEAD, null, null, null, null), 0, 1);
      }
      r.put("lastError", failing.isEmpty() ? "" : Masking.signatures(failing.getFirst().lastError()));
      return r;
    }).toList();
    model.addAttribute("endpoints", rows);
    model.addAttribute("httpEndpoints", endpointControl.endpoints().stream().map(e -> {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("endpoint", e.endpoint());
      r.put("circuit", e.circuit().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
      r.put("inFlight", e.inFlight());
      r.put("requestsPerSecond", e.requestsPerSecond());
      String own = endpointControl.ownMaxRate(e.endpoint()).orElse(null);
      r.put("ownMaxRate", own == null ? "" : own);
      r.put("maxRate", own != null ? own : e.maxRate() == null ? "none" : e.maxRate());
      r.put("consecutiveFailures", e.consecutiveFailures());
      r.put("lastFailure", e.lastFailure() == null ? "" : Masking.signatures(e.lastFailure()));
      r.put("disabled", e.disabled());
      r.put("disabledReason", e.disabledReason() == null ? "" : e.disabledReason());
      return r;
    }).toList());
    return "console/endpoints";
  }

  /** Admins only (as in the API; {@link ConsoleSecurity} checks it): the endpoint's notices wait. */
  @PostMapping("/endpoints/disable")
  String disableEndpoint(@RequestParam String url, @RequestParam(required = false) String reason,
      Authentication auth, RedirectAttributes flash) {
    String why = (reason == null || reason.isBlank() ? "" : reason.strip() + " ") + "(" + auth.getName() + ")";
    return endpointChange(flash, () -> endpointControl.disable(url, why), "disabled: its notices wait");
  }

  @PostMapping("/endpoints/enable")
  String enableEndpoint(@RequestParam String url, RedirectAttributes flash) {
    return endpointChange(flash, () -> endpointControl.enable(url), "enabled: its waiting notices go at their turn");
  }

  /** A blank rate removes the endpoint's own limit. */
  @PostMapping("/endpoints/rate")
  String endpointRate(@RequestParam String url, @RequestParam(required = false) String maxRate,
      RedirectAttributes flash) {
    String rate = maxRate == null || maxRate.isBlank() ? null : maxRate.strip();
    return endpointChange(flash, () -> endpointControl.maxRate(url, rate),
        rate == null ? "has no own rate limit now" : "is limited to " + rate);
  }

  private static String endpointChange(RedirectAttributes flash, java.util.function.Supplier<String> change,
      String what) {
    try {
      flash.addFlashAttribute("message", "Endpoint " + change.get() + " " + what);
    } catch (InvalidInputException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/endpoints";
  }

  private String circuit(String definition) {
    try {
      return herald.receiverState(definition).name().toLowerCase(java.util.Locale.ROOT);
    } catch (RuntimeException e) {
      return "unknown";
    }
  }

  @GetMapping("/admin/tokens")
  String tokens(Model model) {
    model.addAttribute("tokens", tokens.list());
    return "console/tokens";
  }

  @PostMapping("/admin/tokens")
  String createToken(@RequestParam String name, @RequestParam String role, Authentication auth,
      RedirectAttributes flash) {
    Role r = Role.parse(role);
    if (r == null) {
      flash.addFlashAttribute("error", "role: one of admin, client");
      return "redirect:/console/admin/tokens";
    }
    try {
      ApiTokens.Created created = tokens.create(name, r, r == Role.ADMIN ? null : dev.herald.server.Tenants.DEFAULT,
          "console:" + auth.getName());
      flash.addFlashAttribute("newToken", created.token());
    } catch (RuntimeException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/tokens";
  }

  @PostMapping("/admin/tokens/{id}/revoke")
  String revokeToken(@PathVariable String id, RedirectAttributes flash) {
    try {
      tokens.revoke(id, new dev.herald.server.Caller("user", null, true, null));
      flash.addFlashAttribute("message", "Token " + id + " revoked");
    } catch (RuntimeException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/tokens";
  }

  @GetMapping("/admin/users")
  String users(Model model) {
    model.addAttribute("users", users.list());
    model.addAttribute("roles", List.of("admin", "operator", "viewer"));
    return "console/users";
  }

  @PostMapping("/admin/users")
  String createUser(@RequestParam String username, @RequestParam String password, @RequestParam String role,
      Authentication auth, RedirectAttributes flash) {
    try {
      users.create(username, password, ConsoleRole.parse(role), "console:" + auth.getName());
      flash.addFlashAttribute("message", "User " + username + " created");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/users";
  }

  @PostMapping("/admin/users/{username}")
  String updateUser(@PathVariable String username, @RequestParam String role,
      @RequestParam(defaultValue = "false") boolean enabled, RedirectAttributes flash) {
    try {
      ConsoleRole r = ConsoleRole.parse(role);
      if (r == null) {
        throw new IllegalArgumentException("role: one of admin, operator, viewer");
      }
      users.update(username, r, enabled);
      flash.addFlashAttribute("message", "User " + username + " saved");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/users";
  }
}
