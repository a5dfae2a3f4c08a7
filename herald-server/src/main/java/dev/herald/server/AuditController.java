package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Set;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The audit log, newest first: admins of every tenant see all of it, a tenant's admins their tenant's. */
@RestController
@RequestMapping("/api/v1/audit")
@Requires(Permission.READ_AUDIT)
class AuditController {
  static final Set<String> PARAMS = Set.of("tenant", "actor", "action", "text", "from", "to", "offset", "limit");
  static final int MAX_LIMIT = 1000;
  static final int MAX_OFFSET = 1_000_000;

  private final AuditLog audit;

  AuditController(AuditLog audit) {
    this.audit = audit;
  }

  @GetMapping
  ObjectNode search(@RequestParam MultiValueMap<String, String> params, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    for (String p : params.keySet()) {
      if (!PARAMS.contains(p)) {
        throw ApiException.invalid(p, "unknown parameter; expected " + String.join(", ", PARAMS));
      }
    }
    String tenant = text(params, "tenant", 40);
    if (!caller.everyTenant()) {
      if (tenant != null && !tenant.equals(caller.tenant())) {
        throw ApiException.invalid("tenant", "an admin of tenant " + caller.tenant() + " reads that tenant's entries only");
      }
      tenant = caller.tenant();
    }
    int offset = number(params, "offset", 0, 0, MAX_OFFSET);
    int limit = number(params, "limit", 50, 1, MAX_LIMIT);
    String from = params.getFirst("from");
    String to = params.getFirst("to");
    List<AuditLog.Entry> rows = audit.search(new AuditLog.Query(tenant, text(params, "actor", 250),
        text(params, "action", 60), text(params, "text", 200),
        from == null || from.isBlank() ? null : JsonInput.instant(from, "from"),
        to == null || to.isBlank() ? null : JsonInput.instant(to, "to"), offset, limit));
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    rows.stream().limit(limit).forEach(e -> {
      ObjectNode o = items.addObject();
      o.put("id", e.id());
      Views.time(o, "at", e.at());
      o.put("actor", e.actor());
      o.put("tenant", e.tenant());
      o.put("action", e.action());
      o.put("target", e.target());
      o.put("detail", e.detail());
      o.put("address", e.address());
    });
    out.put("offset", offset);
    out.put("limit", limit);
    out.put("hasMore", rows.size() > limit);
    return out;
  }

  private static String text(MultiValueMap<String, String> params, String name, int max) {
    String v = params.getFirst(name);
    if (v == null || v.isBlank()) {
      return null;
    }
    if (v.length() > max) {
      throw ApiException.invalid(name, "must be at most " + max + " characters");
    }
    return v.strip();
  }

  static int number(MultiValueMap<String, String> params, String name, int fallback, int min, int max) {
    String v = params.getFirst(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n < min || n > max) {
        throw ApiException.invalid(name, "must be between " + min + " and " + max + ", was " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiException.invalid(name, "must be a whole number, was '" + v + "'");
    }
  }
}
