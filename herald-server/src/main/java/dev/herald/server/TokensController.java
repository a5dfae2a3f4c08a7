package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.Set;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** API tokens: admin only. A new token's secret is in the creation response and nowhere else. */
@RestController
@RequestMapping("/api/v1/tokens")
@Requires(Permission.MANAGE_TOKENS)
class TokensController {
  private final ApiTokens tokens;
  private final RequestBodies bodies;
  private final Tenants tenants;
  private final AuditLog audit;

  TokensController(ApiTokens tokens, RequestBodies bodies, Tenants tenants, AuditLog audit) {
    this.tokens = tokens;
    this.bodies = bodies;
    this.tenants = tenants;
    this.audit = audit;
  }

  /**
   * Creates a token. An admin of one tenant creates tokens of that tenant; an admin of every tenant
   * names the {@code tenant} (a client token without one is the default tenant's; an admin token
   * without one acts for every tenant).
   */
  @PostMapping
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("name", "role", "tenant"));
    String name = JsonInput.requiredText(in, "", "name");
    String roleText = JsonInput.requiredText(in, "", "role");
    Role role = Role.parse(roleText);
    if (role == null) {
      throw ApiException.invalid("role", "must be admin or client, was '" + roleText + "'");
    }
    String tenant = JsonInput.text(in, "", "tenant");
    if (!caller.everyTenant()) {
      if (tenant != null && !tenant.equals(caller.tenant())) {
        throw ApiException.invalid("tenant", "an admin of tenant " + caller.tenant() + " creates tokens of that tenant"
            + " only");
      }
      tenant = caller.tenant();
    } else if (tenant == null && role == Role.CLIENT) {
      tenant = Tenants.DEFAULT;
    }
    if (tenant != null && tenants.find(tenant).isEmpty()) {
      throw ApiException.invalid("tenant", "no tenant '" + tenant + "'");
    }
    ApiTokens.Created created = tokens.create(name, role, tenant, caller.actor());
    audit.record(caller, tenant, "token.create", created.info().id(), "'" + created.info().name() + "', role "
        + role.text() + ", tenant " + (tenant == null ? "every tenant" : tenant));
    ObjectNode out = view(created.info());
    out.put("token", created.token());
    return ResponseEntity.created(URI.create("/api/v1/tokens/" + created.info().id())).body(out);
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    tokens.list(ApiFilter.caller(request)).forEach(t -> items.add(view(t)));
    return out;
  }

  @DeleteMapping("/{id}")
  ObjectNode revoke(@PathVariable("id") String id, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ApiTokens.Info revoked = tokens.revoke(id, caller);
    audit.record(caller, revoked.tenant(), "token.revoke", id, "'" + revoked.name() + "'");
    return view(revoked);
  }

  static ObjectNode view(ApiTokens.Info t) {
    ObjectNode o = Views.object();
    o.put("id", t.id());
    o.put("name", t.name());
    o.put("role", t.role().text());
    o.put("tenant", t.tenant());
    o.put("hint", t.hint());
    Views.time(o, "createdAt", t.createdAt());
    o.put("createdBy", t.createdBy());
    Views.time(o, "lastUsedAt", t.lastUsedAt());
    Views.time(o, "revokedAt", t.revokedAt());
    o.put("active", t.active());
    return o;
  }
}
