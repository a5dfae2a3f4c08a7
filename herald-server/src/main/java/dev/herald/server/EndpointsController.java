package dev.herald.server;

import dev.herald.InvalidInputException;
import dev.herald.channel.http.EndpointStatus;
import dev.herald.channel.http.HttpChannel;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Webhook endpoints (origins: scheme, host, port) as this server's channel sees them: circuit,
 * requests in flight, rate, last failure, disabled flag. Admins disable and enable an endpoint and
 * set its own rate limit; both are stored and hold on every server and across restarts.
 */
@RestController
@RequestMapping("/api/v1/endpoints")
@Requires(Permission.READ)
class EndpointsController {
  private final HttpChannel http;
  private final EndpointControl control;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final TenantEndpoints tenantEndpoints;
  private final dev.herald.Herald herald;
  private final AuditLog audit;

  EndpointsController(ServerHttpChannel http, EndpointControl control, RequestBodies bodies, TenantScope scope,
      TenantEndpoints tenantEndpoints, dev.herald.Herald herald, AuditLog audit) {
    this.http = http.http();
    this.control = control;
    this.bodies = bodies;
    this.scope = scope;
    this.tenantEndpoints = tenantEndpoints;
    this.herald = herald;
    this.audit = audit;
  }

  /** The endpoints of this server's channel; a tenant's callers see those its notices and definitions go to. */
  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    java.util.Set<String> mine = scope.narrows(caller) ? tenantEndpoints.of(caller, scope, herald) : null;
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    http.endpoints().stream().filter(e -> mine == null || mine.contains(e.endpoint())).forEach(e -> items.add(view(e)));
    return out;
  }

  @PostMapping("/disable")
  @Requires(Permission.MANAGE_ENDPOINTS)
  ObjectNode disable(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request, Set.of("url", "reason"));
    String endpoint = refused(() -> control.disable(JsonInput.requiredText(in, "", "url"),
        JsonInput.text(in, "", "reason")));
    audit.record(caller, null, "endpoint.disable", endpoint, JsonInput.text(in, "", "reason"));
    return current(endpoint);
  }

  @PostMapping("/enable")
  @Requires(Permission.MANAGE_ENDPOINTS)
  ObjectNode enable(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request, Set.of("url"));
    String endpoint = refused(() -> control.enable(JsonInput.requiredText(in, "", "url")));
    audit.record(caller, null, "endpoint.enable", endpoint, null);
    return current(endpoint);
  }

  @PutMapping("/rate")
  @Requires(Permission.MANAGE_ENDPOINTS)
  ObjectNode rate(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request, Set.of("url", "maxRate"));
    String url = JsonInput.requiredText(in, "", "url");
    if (!in.has("maxRate")) {
      throw ApiException.invalid("maxRate", "is required: a rate such as 100/s, or null to remove the endpoint's own");
    }
    String rate = JsonInput.text(in, "", "maxRate");
    String endpoint = refused(() -> control.maxRate(url, rate));
    audit.record(caller, null, "endpoint.rate", endpoint, rate == null ? "own rate removed" : rate);
    return current(endpoint);
  }

  /** The control's refusal as a 400 naming the field. */
  private static String refused(java.util.function.Supplier<String> change) {
    try {
      return change.get();
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
  }

  private ObjectNode body(HttpServletRequest request, Set<String> fields) {
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", fields);
    return in;
  }

  private ObjectNode current(String endpoint) {
    return http.endpoint(endpoint).map(this::view).orElseGet(() -> {
      ObjectNode o = Views.object();
      o.put("endpoint", endpoint);
      o.put("disabled", false);
      o.put("maxRate", http.maxRate(endpoint).orElse(null));
      return o;
    });
  }

  private ObjectNode view(EndpointStatus e) {
    ObjectNode o = Views.object();
    o.put("endpoint", e.endpoint());
    o.put("disabled", e.disabled());
    Views.time(o, "disabledAt", e.disabledAt());
    o.put("disabledReason", e.disabledReason());
    o.put("circuit", e.circuit().name());
    Views.time(o, "openUntil", e.openUntil());
    o.put("inFlight", e.inFlight());
    o.put("requestsPerSecond", e.requestsPerSecond());
    o.put("maxRate", http.maxRate(e.endpoint()).orElse(e.maxRate()));
    o.put("ownMaxRate", http.maxRate(e.endpoint()).orElse(null));
    o.put("waitingForRate", e.waitingForRate());
    o.put("consecutiveFailures", e.consecutiveFailures());
    o.put("lastFailure", e.lastFailure());
    Views.time(o, "lastFailureAt", e.lastFailureAt());
    Views.time(o, "failingSince", e.failingSince());
    return o;
  }
}
