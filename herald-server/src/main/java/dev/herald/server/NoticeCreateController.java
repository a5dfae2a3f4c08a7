package dev.herald.server;

import static dev.herald.server.JsonInput.child;
import static dev.herald.server.JsonInput.index;

import dev.herald.EnqueueResult;
import dev.herald.FieldPath;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.JsonPayload;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.Traceparent;
import dev.herald.channel.http.HttpChannel;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Document 002's batch create: every item is checked (shape, types, formats, limits, unknown
 * definitions, refused URLs) before anything is written, and one bad item refuses the whole request.
 */
@RestController
@RequestMapping("/api/v1/notices")
@Requires(Permission.CREATE_NOTICES)
class NoticeCreateController {
  static final Set<String> CREATE_FIELDS = Set.of(
      "definition", "callbackUrl", "fallbackUrls", "payload", "fireAt", "delay", "idempotencyKey", "description",
      "shardKey", "orderingKey", "traceparent");

  private final Herald herald;
  private final ServerProperties properties;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final TenantQuotas quotas;
  private final TenantEndpoints endpoints;
  private final NoticeChecks checks;

  NoticeCreateController(Herald herald, ServerHttpChannel http, ServerProperties properties, RequestBodies bodies,
      TenantScope scope, TenantQuotas quotas, TenantEndpoints endpoints) {
    this.herald = herald;
    this.properties = properties;
    this.bodies = bodies;
    this.scope = scope;
    this.quotas = quotas;
    this.endpoints = endpoints;
    this.checks = new NoticeChecks(herald, http.http(), properties);
  }

  @PostMapping
  ResponseEntity<JsonNode> create(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    Map<String, Optional<NoticeDefinition>> definitions = new HashMap<>();
    // another tenant's definition is refused exactly as one that does not exist
    Function<String, Optional<NoticeDefinition>> lookup = name -> definitions.computeIfAbsent(name,
        n -> scope.seesDefinition(caller, n) ? herald.definitions().find(n) : Optional.empty());
    // The caller's trace context: its notices' attempts continue that trace. A malformed header is
    // ignored, as W3C Trace Context asks of receivers; an item's own traceparent field is checked.
    String traceparent = Traceparent.orNull(request.getHeader(Traceparent.HEADER));
    List<NoticeRequest> requests = NoticeChecks.readItems(bodies.object(request), properties.getMaxBatch(),
        (item, path) -> createRequest(item, path, lookup, traceparent, caller));
    List<String> tenantOf = requests.stream().map(r -> scope.tenantOfNewNotice(caller, r.definition())).toList();
    Map<String, Integer> perTenant = new java.util.TreeMap<>();
    tenantOf.forEach(t -> perTenant.merge(t, 1, Integer::sum));
    perTenant.forEach(quotas::take); // 429 before anything is written
    List<EnqueueResult> written;
    try {
      // nothing here rolls back to a savepoint: the notices are held from their insert on
      written = herald.inTransactionWithoutSavepoints(tx -> {
        List<EnqueueResult> results = tx.enqueueAllResults(requests);
        Map<String, List<UUID>> created = new HashMap<>();
        for (int i = 0; i < results.size(); i++) {
          if (results.get(i).created()) { // a notice returned for a known idempotency key has its owner already
            created.computeIfAbsent(tenantOf.get(i), k -> new ArrayList<>()).add(results.get(i).notice().id());
          }
        }
        for (Map.Entry<String, List<UUID>> e : created.entrySet()) {
          if (!e.getKey().equals(Tenants.DEFAULT)) {
            scope.owners().write(tx.connection(), e.getValue().stream().distinct().toList(), e.getKey());
          }
        }
        return results;
      });
    } catch (InvalidInputException e) {
      throw ApiException.invalid(itemField(e.path(), requests.size() == 1), e.reason());
    }
    List<Notice> notices = written.stream().map(EnqueueResult::notice).toList();
    endpoints.saw(tenantOf, requests, notices, herald);
    ObjectNode out = Views.object();
    ArrayNode ids = out.putArray("ids");
    ArrayNode results = out.putArray("notices");
    boolean anyCreated = false;
    for (int i = 0; i < written.size(); i++) {
      Notice n = written.get(i).notice();
      boolean created = written.get(i).created();
      anyCreated |= created;
      ids.add(n.id().toString());
      ObjectNode r = results.addObject();
      r.put("index", i);
      r.put("id", n.id().toString());
      r.put("created", created);
      r.put("status", n.status().name());
      Views.time(r, "fireAt", n.fireAt());
    }
    return ResponseEntity.status(anyCreated ? HttpStatus.CREATED : HttpStatus.OK).body(out);
  }

  /** One item as the core's request; its payload a {@link JsonPayload}, parsed once, by {@link JsonBody}. */
  NoticeRequest createRequest(JsonNode item, String path, Function<String, Optional<NoticeDefinition>> lookup,
      String traceparent, Caller caller) {
    ObjectNode o = JsonInput.object(item, path);
    JsonInput.only(o, path, CREATE_FIELDS);
    String definition = JsonInput.text(o, path, "definition");
    String url = JsonInput.text(o, path, "callbackUrl");
    if (!o.has("payload")) {
      throw ApiException.invalid(child(path, "payload"),
          "is required: any JSON value (object, array, string, number, true, false or null)");
    }
    JsonPayload payload = JsonInput.payload(o.get("payload"), child(path, "payload"));
    Instant fireAt = JsonInput.instant(o, path, "fireAt");
    Duration delay = JsonInput.duration(o, path, "delay");
    if (fireAt != null && delay != null) {
      throw ApiException.invalid(child(path, "delay"), "give fireAt or delay, not both");
    }
    checks.refuseBeyondHorizon(fireAt, delay, path);
    if (definition == null && url == null) {
      throw ApiException.invalid(child(path, "definition"),
          "is required unless callbackUrl is given (a direct callback uses definition '"
              + properties.getCallbackDefinition() + "')");
    }
    String name = definition != null ? definition : properties.getCallbackDefinition();
    NoticeDefinition d = lookup.apply(name).orElseThrow(() ->
        ApiException.invalid(child(path, "definition"), "no definition named '" + name + "'"));
    String tenant = scope.tenantOfNewNotice(caller, name);
    if (url != null) {
      if (!HttpChannel.NAME.equals(d.channel())) {
        throw ApiException.invalid(child(path, "callbackUrl"), "definition '" + name + "' delivers through channel '"
            + d.channel() + "'; a callbackUrl is only for definitions of channel http");
      }
      checks.checkUrl(url, child(path, "callbackUrl"));
      Tenants.Tenant t = scope.tenants().find(tenant).orElse(null);
      CallbackOrigins.check(d, t, url, child(path, "callbackUrl"));
      url = withFallbacks(o, path, url, d, t);
    } else if (o.has("fallbackUrls")) {
      throw ApiException.invalid(child(path, "fallbackUrls"), "needs a callbackUrl: the fail-over targets of a"
          + " definition's own target are its option fallback-targets");
    } else if (d.perNoticeTarget()) {
      throw ApiException.invalid(child(path, "callbackUrl"),
          "is required: definition '" + name + "' has no URL of its own");
    }
    NoticeRequest r = NoticeRequest.of(name, payload)
        .description(JsonInput.text(o, path, "description"))
        .idempotencyKey(TenantKeys.stored(tenant, key(o, path, "idempotencyKey", tenant)))
        .shardKey(JsonInput.text(o, path, "shardKey"))
        .orderingKey(TenantKeys.stored(tenant, key(o, path, "orderingKey", tenant)))
        .target(url);
    String own = JsonInput.text(o, path, "traceparent");
    if (own != null && !Traceparent.isValid(own)) {
      throw ApiException.invalid(child(path, "traceparent"),
          "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower case");
    }
    r = r.traceparent(own != null ? own : traceparent);
    if (fireAt != null) {
      r = r.fireAt(fireAt);
    } else if (delay != null) {
      r = r.delay(delay);
    }
    return r;
  }

  /** A key field: no control characters, short enough for the tenant's namespace in the stored key. */
  private static String key(ObjectNode o, String path, String name, String tenant) {
    String k = JsonInput.text(o, path, name);
    if (k == null) {
      return null;
    }
    int max = 200 - (tenant.equals(Tenants.DEFAULT) ? 0 : tenant.length() + 2);
    if (k.isBlank() || k.length() > max || k.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.invalid(child(path, name), "must be 1 to " + max + " characters, without control characters");
    }
    return k;
  }

  /**
   * The callback URL and its fail-over URLs ({@code fallbackUrls}, tried in order when it fails),
   * each checked as the callback URL is, stored as one target.
   */
  private String withFallbacks(ObjectNode o, String path, String url, NoticeDefinition d, Tenants.Tenant tenant) {
    JsonNode f = o.get("fallbackUrls");
    if (f == null || f.isNull()) {
      return url;
    }
    String field = child(path, "fallbackUrls");
    if (!f.isArray() || f.isEmpty() || f.size() > 4) {
      throw ApiException.invalid(field, "must be an array of 1 to 4 URLs, was " + JsonInput.kind(f));
    }
    List<String> fallbacks = new ArrayList<>(f.size());
    for (int i = 0; i < f.size(); i++) {
      JsonNode u = f.get(i);
      if (!u.isString()) {
        throw ApiException.invalid(index(field, i), "must be a string, was " + JsonInput.kind(u));
      }
      checks.checkUrl(u.stringValue(), index(field, i));
      CallbackOrigins.check(d, tenant, u.stringValue(), index(field, i));
      fallbacks.add(u.stringValue());
    }
    String target = new CallbackTargets(url, fallbacks).stored();
    if (target.length() > 2000) {
      throw ApiException.invalid(field, "callbackUrl and fallbackUrls must be at most 2000 characters together");
    }
    return target;
  }

  /**
   * A core field path of a batch item as this API names it: {@code notices[i].callbackUrl} (the core
   * calls a lone request's fields by their names, and a notice's URL its target).
   */
  static String itemField(FieldPath path, boolean single) {
    FieldPath p = single && !path.startsWith("notices") ? ITEM.at(0).then(path) : path;
    return p.renamedLeaf("target", "callbackUrl").toString();
  }

  private static final FieldPath ITEM = FieldPath.of("notices");
}
