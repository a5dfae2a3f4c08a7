package dev.herald.server.console;

import dev.herald.AlertPolicy;
import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.server.ApiTokens;
import dev.herald.server.AuditLog;
import dev.herald.server.Access;
import dev.herald.server.Caller;
import dev.herald.server.Permission;
import dev.herald.server.EndpointControl;
import dev.herald.server.Role;
import dev.herald.server.TenantScope;
import dev.herald.server.Tenants;
import dev.herald.server.UrlMasking;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * Definitions and endpoints (everyone sees those of their tenant, admins change them), API tokens
 * (admins, of their tenant), users (admins of every tenant) and the audit log (admins). A user limited
 * to a tenant sees and changes that tenant's things only; another tenant's answer as missing ones.
 */
@Controller
@RequestMapping("/console")
class ConsoleAdminController {
  private static final int AUDIT_PAGE = 50;

  private final Herald herald;
  private final ApiTokens tokens;
  private final ConsoleUsers users;
  private final NoticeSearch search;
  private final EndpointControl endpointControl;
  private final TenantScope scope;
  private final AuditLog audit;
  private final dev.herald.server.TenantEndpoints tenantEndpoints;

  ConsoleAdminController(Herald herald, ApiTokens tokens, ConsoleUsers users,
      EndpointControl endpointControl, TenantScope scope, AuditLog audit,
      dev.herald.server.TenantEndpoints tenantEndpoints) {
    this.tenantEndpoints = tenantEndpoints;
    this.herald = herald;
    this.tokens = tokens;
    this.users = users;
    this.search = new NoticeSearch(herald.reports());
    this.endpointControl = endpointControl;
    this.scope = scope;
    this.audit = audit;
  }

  @GetMapping("/definitions")
  String definitions(Model model, Authentication auth, HttpServletRequest request) {
    model.addAttribute("definitions", scope.definitions(ConsoleModel.caller(auth, request), herald));
    return "console/definitions";
  }

  /** A definition's target as a page shows it: masked but for admins; none when each notice gives its own. */
  static String shownTarget(NoticeDefinition d, boolean seesTargets) {
    if (d.perNoticeTarget()) {
      return PER_NOTICE_TARGET;
    }
    return seesTargets ? d.target() : UrlMasking.mask(d.target());
  }

  /** What a page shows for the target of a definition whose notices each give their own. */
  static final String PER_NOTICE_TARGET = "each notice gives its own URL";

  @GetMapping("/definitions/{name}")
  String definition(@PathVariable String name, Model model, Authentication auth, HttpServletRequest request,
      HttpServletResponse response) {
    Caller caller = ConsoleModel.caller(auth, request);
    NoticeDefinition d = scope.seesDefinition(caller, name) ? herald.definitions().find(name).orElse(null) : null;
    if (d == null) {
      response.setStatus(404);
      model.addAttribute("error", "No definition named " + Masking.text(name));
      return "console/denied";
    }
    boolean seesTargets = Access.may(caller, Permission.READ_TARGETS);
    Map<String, String> options = new LinkedHashMap<>();
    d.options().forEach((k, v) -> options.put(k, Masking.option(k, seesTargets ? v : UrlMasking.mask(v))));
    model.addAttribute("d", d);
    model.addAttribute("target", shownTarget(d, seesTargets));
    model.addAttribute("options", options);
    model.addAttribute("mayChange", scope.mayChangeDefinition(caller, name));
    return "console/definition";
  }

  @PostMapping("/definitions/{name}")
  String saveDefinition(@PathVariable String name, @RequestParam String retry, @RequestParam int maxAttempts,
      @RequestParam String alertPolicy, @RequestParam(required = false) String description, RedirectAttributes flash,
      Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    NoticeDefinition d = scope.seesDefinition(caller, name) ? herald.definitions().find(name).orElse(null) : null;
    if (d == null || !scope.mayChangeDefinition(caller, name)) {
      flash.addFlashAttribute("error", d == null ? "No definition named " + Masking.text(name)
          : "Definition " + name + " belongs to tenant " + scope.tenants().ownerOf(name) + ": its admins change it");
      return "redirect:/console/definitions";
    }
    try {
      ConsoleController.limit("retry", retry);
      ConsoleController.limit("alertPolicy", alertPolicy);
      if (description != null && description.length() > 2000) {
        throw new IllegalArgumentException("description: at most 2000 characters");
      }
      NoticeDefinition changed = d.toBuilder().retry(retry).maxAttempts(maxAttempts)
          .alert(AlertPolicy.parse(alertPolicy)).description(description == null || description.isBlank() ? null
              : description).build();
      herald.definitions().save(changed);
      audit.record(caller, scope.tenants().ownerOf(name), "definition.update", name, "retry " + retry
          + ", maxAttempts " + maxAttempts + ", alert " + alertPolicy);
      flash.addFlashAttribute("message", "Definition " + name + " saved");
    } catch (HeraldException | IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/definitions/" + name;
  }

  /** Each definition's receiver: its circuit, and the last error of its failing notices. */
  @GetMapping("/endpoints")
  String endpoints(Model model, Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    String tenant = scope.narrows(caller) ? caller.tenant() : null;
    boolean seesTargets = Access.may(caller, Permission.READ_TARGETS);
    List<NoticeDefinition> visible = scope.definitions(caller, herald);
    List<Map<String, Object>> rows = visible.stream().map(d -> {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("definition", d.name());
      r.put("channel", d.channel());
      r.put("target", shownTarget(d, seesTargets));
      r.put("circuit", circuit(d.name()));
      var failing = search.page(new NoticeSearch.Criteria(d.name(), NoticeStatus.FAILED, null, null, null, null,
          tenant), 0, 1);
      if (failing.isEmpty()) {
        failing = search.page(new NoticeSearch.Criteria(d.name(), NoticeStatus.DEAD, null, null, null, null, tenant),
            0, 1);
      }
      String error = failing.isEmpty() ? "" : Masking.signatures(failing.getFirst().lastError());
      r.put("lastError", seesTargets ? error : UrlMasking.maskIn(error));
      return r;
    }).toList();
    model.addAttribute("endpoints", rows);
    Set<String> shown = tenant == null ? null : tenantEndpoints.of(caller, scope, herald);
    model.addAttribute("httpEndpoints", endpointControl.endpoints().stream()
        .filter(e -> shown == null || shown.contains(e.endpoint())).map(e -> {
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("endpoint", e.endpoint());
          r.put("circuit", e.circuit().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
          r.put("inFlight", e.inFlight());
          r.put("requestsPerSecond", e.requestsPerSecond());
          String own = endpointControl.ownMaxRate(e.endpoint()).orElse(null);
          r.put("ownMaxRate", own == null ? "" : own);
          r.put("maxRate", own != null ? own : e.maxRate() == null ? "none" : e.maxRate());
          r.put("consecutiveFailures", e.consecutiveFailures());
          String failure = e.lastFailure() == null ? "" : Masking.signatures(e.lastFailure());
          r.put("lastFailure", seesTargets ? failure : UrlMasking.maskIn(failure));
          r.put("disabled", e.disabled());
          r.put("disabledReason", e.disabledReason() == null ? "" : e.disabledReason());
          return r;
        }).toList());
    return "console/endpoints";
  }

  /** Admins of every tenant only (as in the API; {@link ConsoleSecurity} checks it): the endpoint's notices wait. */
  @PostMapping("/endpoints/disable")
  String disableEndpoint(@RequestParam String url, @RequestParam(required = false) String reason,
      Authentication auth, HttpServletRequest request, RedirectAttributes flash) {
    Caller caller = ConsoleModel.caller(auth, request);
    String why = (reason == null || reason.isBlank() ? "" : reason.strip() + " ") + "(" + auth.getName() + ")";
    return endpointChange(flash, () -> {
      String e = endpointControl.disable(url, why);
      audit.record(caller, null, "endpoint.disable", e, why);
      return e;
    }, "disabled: its notices wait");
  }

  @PostMapping("/endpoints/enable")
  String enableEndpoint(@RequestParam String url, RedirectAttributes flash, Authentication auth,
      HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    return endpointChange(flash, () -> {
      String e = endpointControl.enable(url);
      audit.record(caller, null, "endpoint.enable", e, null);
      return e;
    }, "enabled: its waiting notices go at their turn");
  }

  /** A blank rate removes the endpoint's own limit. */
  @PostMapping("/endpoints/rate")
  String endpointRate(@RequestParam String url, @RequestParam(required = false) String maxRate,
      RedirectAttributes flash, Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    String rate = maxRate == null || maxRate.isBlank() ? null : maxRate.strip();
    return endpointChange(flash, () -> {
      String e = endpointControl.maxRate(url, rate);
      audit.record(caller, null, "endpoint.rate", e, rate == null ? "own rate removed" : rate);
      return e;
    }, rate == null ? "has no own rate limit now" : "is limited to " + rate);
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

  // ------------------------------------------------------------------------------------ tokens

  @GetMapping("/admin/tokens")
  String tokens(Model model, Authentication auth, HttpServletRequest request) {
    model.addAttribute("tokens", tokens.list(ConsoleModel.caller(auth, request)));
    model.addAttribute("tenants", scope.tenants().list().stream().map(Tenants.Tenant::id).toList());
    return "console/tokens";
  }

  @PostMapping("/admin/tokens")
  String createToken(@RequestParam String name, @RequestParam String role,
      @RequestParam(required = false) String tenant, Authentication auth, HttpServletRequest request,
      RedirectAttributes flash) {
    Caller caller = ConsoleModel.caller(auth, request);
    Role r = Role.parse(role);
    if (r == null) {
      flash.addFlashAttribute("error", "role: one of admin, client");
      return "redirect:/console/admin/tokens";
    }
    String t = caller.tenant() != null ? caller.tenant() : tenant == null || tenant.isBlank()
        ? (r == Role.ADMIN ? null : Tenants.DEFAULT) : tenant.strip();
    if (t != null && scope.tenants().find(t).isEmpty()) {
      flash.addFlashAttribute("error", "tenant: no tenant '" + Masking.text(t) + "'");
      return "redirect:/console/admin/tokens";
    }
    try {
      ApiTokens.Created created = tokens.create(name, r, t, "console:" + auth.getName());
      audit.record(caller, t, "token.create", created.info().id(), "'" + created.info().name() + "', role " + r.text()
          + ", tenant " + (t == null ? "every tenant" : t));
      flash.addFlashAttribute("newToken", created.token());
    } catch (RuntimeException e) {
      flash.addFlashAttribute("error", shown(e));
    }
    return "redirect:/console/admin/tokens";
  }

  /** A refusal's message for the page; a database failure's only in the log (it may hold SQL). */
  private static String shown(RuntimeException e) {
    if (e instanceof ApiTokens.StoreUnavailable || e instanceof IllegalStateException) {
      org.slf4j.LoggerFactory.getLogger(ConsoleAdminController.class).warn("console: {}", e.getMessage(), e);
      return "The database failed; nothing was changed. See the server's log.";
    }
    return e.getMessage();
  }

  @PostMapping("/admin/tokens/{id}/revoke")
  String revokeToken(@PathVariable String id, RedirectAttributes flash, Authentication auth,
      HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    try {
      ApiTokens.Info revoked = tokens.revoke(id, caller);
      audit.record(caller, revoked.tenant(), "token.revoke", id, "'" + revoked.name() + "'");
      flash.addFlashAttribute("message", "Token " + id + " revoked");
    } catch (RuntimeException e) {
      flash.addFlashAttribute("error", shown(e));
    }
    return "redirect:/console/admin/tokens";
  }

  // ------------------------------------------------------------------------------------ users

  @GetMapping("/admin/users")
  String users(Model model) {
    model.addAttribute("users", users.list());
    model.addAttribute("roles", List.of("admin", "operator", "viewer"));
    model.addAttribute("tenants", scope.tenants().list().stream().map(Tenants.Tenant::id).toList());
    return "console/users";
  }

  @PostMapping("/admin/users")
  String createUser(@RequestParam String username, @RequestParam String password, @RequestParam String role,
      @RequestParam(required = false) String tenant, Authentication auth, HttpServletRequest request,
      RedirectAttributes flash) {
    Caller caller = ConsoleModel.caller(auth, request);
    try {
      String t = tenantOrNull(tenant);
      users.create(username, password, ConsoleRole.parse(role), t, "console:" + auth.getName());
      audit.record(caller, t, "user.create", username, "role " + role + ", tenant " + (t == null ? "every tenant" : t));
      flash.addFlashAttribute("message", "User " + username + " created");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/users";
  }

  @PostMapping("/admin/users/{username}")
  String updateUser(@PathVariable String username, @RequestParam String role,
      @RequestParam(defaultValue = "false") boolean enabled, @RequestParam(required = false) String tenant,
      Authentication auth, HttpServletRequest request, RedirectAttributes flash) {
    Caller caller = ConsoleModel.caller(auth, request);
    try {
      ConsoleRole r = ConsoleRole.parse(role);
      if (r == null) {
        throw new IllegalArgumentException("role: one of admin, operator, viewer");
      }
      String t = tenantOrNull(tenant);
      users.update(username, r, enabled, t);
      audit.record(caller, t, "user.update", username, "role " + r.text() + ", " + (enabled ? "enabled" : "disabled")
          + ", tenant " + (t == null ? "every tenant" : t) + "; their sessions end");
      flash.addFlashAttribute("message", "User " + username + " saved");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/users";
  }

  /** An admin sets a user's password (a user who lost theirs); the user's sessions end. */
  @PostMapping("/admin/users/{username}/password")
  String resetPassword(@PathVariable String username, @RequestParam String password, Authentication auth,
      HttpServletRequest request, RedirectAttributes flash) {
    Caller caller = ConsoleModel.caller(auth, request);
    try {
      users.setPassword(username, password);
      audit.record(caller, null, "user.password-reset", username, "their sessions end");
      flash.addFlashAttribute("message", "Password of " + username + " set; their sessions ended");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/admin/users";
  }

  private String tenantOrNull(String tenant) {
    if (tenant == null || tenant.isBlank()) {
      return null;
    }
    if (scope.tenants().find(tenant.strip()).isEmpty()) {
      throw new IllegalArgumentException("tenant: no tenant '" + Masking.text(tenant) + "'");
    }
    return tenant.strip();
  }

  // ------------------------------------------------------------------------------------ audit

  @GetMapping("/admin/audit")
  String audit(@RequestParam(required = false) String action, @RequestParam(required = false) String actor,
      @RequestParam(required = false) String text, @RequestParam(defaultValue = "0") int page, Model model,
      Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    if (page < 0 || page > ConsoleController.MAX_PAGE) {
      throw new IllegalArgumentException("page: must be from 0 to " + ConsoleController.MAX_PAGE + ", was " + page);
    }
    ConsoleController.limit("action", action);
    ConsoleController.limit("actor", actor);
    ConsoleController.limit("text", text);
    List<AuditLog.Entry> rows = audit.search(new AuditLog.Query(caller.tenant(), blank(actor), blank(action),
        blank(text), null, null, page * AUDIT_PAGE, AUDIT_PAGE));
    model.addAttribute("entries", rows.size() > AUDIT_PAGE ? rows.subList(0, AUDIT_PAGE) : rows);
    model.addAttribute("hasMore", rows.size() > AUDIT_PAGE);
    model.addAttribute("page", page);
    model.addAttribute("action", action);
    model.addAttribute("actor", actor);
    model.addAttribute("text", text);
    return "console/audit";
  }

  private static String blank(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  /** Bad input in a request the pages did not build: a precise message, nothing changed (400). */
  @org.springframework.web.bind.annotation.ExceptionHandler(IllegalArgumentException.class)
  @org.springframework.web.bind.annotation.ResponseStatus(org.springframework.http.HttpStatus.BAD_REQUEST)
  String badInput(IllegalArgumentException e, Model model) {
    model.addAttribute("error", Masking.text(e.getMessage()));
    return "console/denied";
  }
}
