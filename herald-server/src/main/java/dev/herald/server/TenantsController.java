package dev.herald.server;

import dev.herald.Herald;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tenants: admins of every tenant create them, set their callback origins and quotas, and grant them
 * definitions of the default tenant. A tenant's own callers read their tenant only.
 */
@RestController
@RequestMapping("/api/v1/tenants")
@Requires(Permission.READ)
class TenantsController {
  static final Set<String> FIELDS = Set.of("id", "name", "callbackOrigins", "maxBacklog", "maxRate");
  private static final ApiResource TENANTS = new ApiResource("id", "/api/v1/tenants", "tenant", "no tenant", null);

  private final Tenants tenants;
  private final Herald herald;
  private final RequestBodies bodies;
  private final AuditLog audit;

  TenantsController(Tenants tenants, Herald herald, RequestBodies bodies, AuditLog audit) {
    this.tenants = tenants;
    this.herald = herald;
    this.bodies = bodies;
    this.audit = audit;
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    return ApiResource.items(tenants.list().stream().filter(t -> Access.touches(caller, t.id())).toList(), this::view);
  }

  @GetMapping("/{id}")
  ObjectNode get(@PathVariable("id") String id, HttpServletRequest request) {
    return view(require(id, ApiFilter.caller(request)));
  }

  @PostMapping
  @Requires(Permission.MANAGE_TENANTS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request, FIELDS);
    String id = JsonInput.requiredText(in, "", "id");
    Set<String> names = herald.definitions().list().stream().map(d -> d.name()).collect(Collectors.toSet());
    Tenants.Tenant t = tenants.create(id, JsonInput.text(in, "", "name"), origins(in), backlog(in),
        JsonInput.text(in, "", "maxRate"), caller.actor(), names);
    audit.record(caller, t.id(), "tenant.create", t.id(), describe(t));
    return TENANTS.created(t.id(), view(t));
  }

  /** Replaces the tenant's name, callback origins and quotas (absent ones: none). */
  @PutMapping("/{id}")
  @Requires(Permission.MANAGE_TENANTS)
  ObjectNode update(@PathVariable("id") String id, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request, FIELDS);
    TENANTS.refuseRename(in, id);
    require(id, caller);
    Tenants.Tenant t = tenants.update(id, JsonInput.text(in, "", "name"), origins(in), backlog(in),
        JsonInput.text(in, "", "maxRate"));
    audit.record(caller, t.id(), "tenant.update", t.id(), describe(t));
    return view(t);
  }

  /** Lets the tenant use a definition of the default tenant (create its notices, read it). */
  @PutMapping("/{id}/grants/{definition}")
  @Requires(Permission.MANAGE_TENANTS)
  ObjectNode grant(@PathVariable("id") String id, @PathVariable("definition") String definition,
      HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    require(id, caller);
    if (id.equals(Tenants.DEFAULT)) {
      throw ApiException.invalid("id", "the default tenant owns the definitions it could be granted");
    }
    if (herald.definitions().find(definition).isEmpty()) {
      throw ApiException.notFound("no definition named '" + definition + "'");
    }
    if (!tenants.ownerOf(definition).equals(Tenants.DEFAULT)) {
      throw ApiException.invalid("definition", "'" + definition + "' belongs to tenant " + tenants.ownerOf(definition)
          + "; only definitions of the default tenant are granted");
    }
    if (tenants.grant(definition, id)) {
      audit.record(caller, id, "tenant.grant", definition, "granted to " + id);
    }
    return view(tenants.find(id).orElseThrow());
  }

  @DeleteMapping("/{id}/grants/{definition}")
  @Requires(Permission.MANAGE_TENANTS)
  ObjectNode revokeGrant(@PathVariable("id") String id, @PathVariable("definition") String definition,
      HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    require(id, caller);
    if (!tenants.revokeGrant(definition, id)) {
      throw ApiException.notFound("tenant " + id + " has no grant of definition '" + definition + "'");
    }
    audit.record(caller, id, "tenant.revoke-grant", definition, "no longer granted to " + id);
    return view(tenants.find(id).orElseThrow());
  }

  private Tenants.Tenant require(String id, Caller caller) {
    return TENANTS.found(tenants.find(id).filter(t -> Access.touches(caller, t.id())), id);
  }

  private static List<String> origins(ObjectNode in) {
    JsonNode n = in.get("callbackOrigins");
    if (n == null || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw ApiException.invalid("callbackOrigins", "must be an array of origins such as https://merchant.example,"
          + " was " + JsonInput.kind(n));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      if (!n.get(i).isString()) {
        throw ApiException.invalid("callbackOrigins[" + i + "]", "must be a string, was " + JsonInput.kind(n.get(i)));
      }
      out.add(n.get(i).stringValue());
    }
    return out;
  }

  private static Long backlog(ObjectNode in) {
    JsonNode n = in.get("maxBacklog");
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isIntegralNumber() || !n.canConvertToLong()) {
      throw ApiException.invalid("maxBacklog", "must be a whole number, was " + JsonInput.kind(n));
    }
    return n.longValue();
  }

  private static String describe(Tenants.Tenant t) {
    return "name '" + t.name() + "', callbackOrigins " + t.callbackOrigins() + ", maxBacklog " + t.maxBacklog()
        + ", maxRate " + t.maxRate();
  }

  private ObjectNode view(Tenants.Tenant t) {
    ObjectNode o = Views.object();
    o.put("id", t.id());
    o.put("name", t.name());
    ArrayNode origins = o.putArray("callbackOrigins");
    t.callbackOrigins().forEach(origins::add);
    o.put("maxBacklog", t.maxBacklog());
    o.put("maxRate", t.maxRate());
    ArrayNode grants = o.putArray("grants");
    tenants.grantsOf(t.id()).stream().sorted().forEach(grants::add);
    Views.time(o, "createdAt", t.createdAt());
    o.put("createdBy", t.createdBy());
    return o;
  }
}
