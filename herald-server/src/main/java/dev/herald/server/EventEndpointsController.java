package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.Ordering;
import dev.herald.events.EventEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Event endpoints: partners' receivers, each subscribed to event types, with its own signing
 * secrets, headers, limits and retries (its own definition, {@code endpoint.<id>}). Reading is open
 * to every token; changing needs an admin token. Secret values (signing secrets, secret headers,
 * secret options) are write-only: responses show {@value Views#MASK}, and sending the mask back in a
 * PUT keeps the stored value. Not to be confused with {@code /api/v1/endpoints}, the HTTP channel's
 * view of the origins it delivers to.
 */
@RestController
@RequestMapping("/api/v1/event-endpoints")
@Requires(Permission.READ)
class EventEndpointsController {
  static final Set<String> FIELDS = Set.of("id", "description", "enabled", "url", "channel", "target", "eventTypes",
      "filter", "headers", "secretHeaders", "secrets", "maxRate", "maxConcurrency", "retry", "maxAttempts", "ordering",
      "options");
  /** Options the API sets through fields of their own. */
  static final Set<String> MAPPED_OPTIONS = Set.of("secrets", "max-rate", "max-concurrency");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ApiResource ENDPOINTS = new ApiResource("id", "/api/v1/event-endpoints", "endpoint",
      "no event endpoint", "an endpoint cannot be renamed");

  private final Herald herald;
  private final RequestBodies bodies;
  private final EndpointSecrets secrets;
  private final AuditLog audit;

  EventEndpointsController(Herald herald, RequestBodies bodies, EndpointSecrets secrets, AuditLog audit) {
    this.audit = audit;
    this.herald = herald;
    this.bodies = bodies;
    this.secrets = secrets;
  }

  /** Option keys whose values are never shown: the server's secret names and the HTTP channel's credential options. */
  static boolean isSecretOption(String key) {
    return EndpointSecrets.isSecret(key);
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    return ApiResource.items(herald.events().endpoints(EventTenant.of(request)), EventViews::endpoint);
  }

  @GetMapping("/{id}")
  ObjectNode get(@PathVariable("id") String id, HttpServletRequest request) {
    return EventViews.endpoint(require(request, id));
  }

  @PostMapping
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    String id = JsonInput.text(in, "", "id");
    if (id == null) {
      id = "ep-" + HexFormat.of().formatHex(random(5));
    }
    ENDPOINTS.refuseTaken(herald.events().findEndpoint(EventTenant.of(request), id).isPresent(), id);
    EventEndpoint built = build(in, id, null, request);
    String fresh = null;
    if (built.delivery().channel().equals("http") && built.secrets().isEmpty()) {
      // made here rather than by the core, so that it is sealed before it is stored
      fresh = herald.events().newSecret();
      built = built.toBuilder().secret(fresh).build();
    }
    EventEndpoint saved = save(built);
    ObjectNode out = EventViews.endpoint(saved);
    // The signing secret is shown once, at creation; GET .../secrets shows it again to admins.
    List<String> signing = secrets.secrets(saved);
    out.put("secret", fresh != null ? fresh : signing.isEmpty() ? null : signing.getFirst());
    return ENDPOINTS.created(saved.id(), out);
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  @PutMapping("/{id}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode update(@PathVariable("id") String id, HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    EventEndpoint existing = require(request, id);
    ENDPOINTS.refuseRename(in, id);
    return EventViews.endpoint(save(build(in, id, existing, request)));
  }

  @DeleteMapping("/{id}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<Void> delete(@PathVariable("id") String id, HttpServletRequest request) {
    require(request, id);
    herald.events().deleteEndpoint(EventTenant.of(request), id);
    return ResponseEntity.noContent().build();
  }

  @PostMapping("/{id}/enable")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode enable(@PathVariable("id") String id, HttpServletRequest request) {
    require(request, id);
    return EventViews.endpoint(herald.events().enable(EventTenant.of(request), id, true));
  }

  @PostMapping("/{id}/disable")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode disable(@PathVariable("id") String id, HttpServletRequest request) {
    require(request, id);
    return EventViews.endpoint(herald.events().enable(EventTenant.of(request), id, false));
  }

  /**
   * Sends again what the endpoint got in a time range of creation ({@code from}, {@code to}):
   * everything ({@code "only": "all"}, the default) or what failed ({@code "failed"}).
   */
  @PostMapping("/{id}/replay")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode replay(@PathVariable("id") String id, HttpServletRequest request) {
    EventEndpoint e = require(request, id);
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("from", "to", "only"));
    java.time.Instant from = JsonInput.instant(in, "", "from");
    java.time.Instant to = JsonInput.instant(in, "", "to");
    if (from == null || to == null) {
      throw ApiException.invalid(from == null ? "from" : "to", "is required: replay the notices created in [from, to)");
    }
    String only = JsonInput.text(in, "", "only");
    if (only != null && !only.equals("all") && !only.equals("failed")) {
      throw ApiException.invalid("only", "must be all or failed, was '" + only + "'");
    }
    dev.herald.NoticeHistory.ReplayResult r;
    try {
      r = herald.history().replay(e.delivery().name(), from, to, "failed".equals(only));
    } catch (InvalidInputException x) {
      throw ApiException.invalid(x.field().equals("createdTo") ? "to" : x.field(), x.reason());
    }
    Caller caller = ApiFilter.caller(request);
    audit.record(caller, caller.actingTenant(), "event-endpoint.replay", id, from + " to " + to + ", "
        + (only == null ? "all" : only) + ": " + r.resent() + " resent");
    ObjectNode out = Views.object();
    out.put("matched", r.matched());
    out.put("resent", r.resent());
    out.put("skipped", r.skipped());
    out.put("more", r.more());
    return out;
  }

  @GetMapping("/{id}/secrets")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode secrets(@PathVariable("id") String id, HttpServletRequest request) {
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("secrets");
    secrets.secrets(require(request, id)).forEach(items::add);
    return out;
  }

  @PostMapping("/{id}/secrets/rotate")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode rotate(@PathVariable("id") String id, HttpServletRequest request) {
    EventEndpoint e = require(request, id);
    String fresh = herald.events().newSecret();
    EventEndpoint.Builder b = e.toBuilder().secret(fresh);
    if (!e.secrets().isEmpty()) {
      b.secret(e.secrets().getFirst()); // the previous one keeps signing beside the new one
    }
    EventEndpoint saved = save(b.build());
    ObjectNode out = Views.object();
    out.put("secret", fresh);
    out.put("secrets", secrets.secrets(saved).size());
    return out;
  }

  @DeleteMapping("/{id}/secrets/previous")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode dropPrevious(@PathVariable("id") String id, HttpServletRequest request) {
    EventEndpoint e = require(request, id);
    return EventViews.endpoint(e.secrets().size() <= 1 ? e : save(e.toBuilder().secret(e.secrets().getFirst()).build()));
  }

  /** The caller's tenant's endpoint, its secrets opened (sealed again by {@link #save}). */
  private EventEndpoint require(HttpServletRequest request, String id) {
    return secrets.open(ENDPOINTS.found(herald.events().findEndpoint(EventTenant.of(request), id), id));
  }

  private EventEndpoint save(EventEndpoint e) {
    try {
      return herald.events().saveEndpoint(secrets.seal(e));
    } catch (InvalidInputException x) {
      throw ApiException.invalid(apiField(x.field(), e.delivery().channel()), x.reason());
    }
  }

  /** The core's and the channel's field names as this API names them. */
  static String apiField(String field, String channel) {
    if (field.equals("target") && channel.equals("http")) {
      return "url";
    }
    if (field.startsWith("retrySchedule")) {
      return "retry";
    }
    for (String[] m : new String[][] {{"options.secret-header.", "secretHeaders."}, {"options.header.", "headers."},
        {"options.max-rate", "maxRate"}, {"options.max-concurrency", "maxConcurrency"}, {"options.secrets", "secrets"}}) {
      if (field.startsWith(m[0])) {
        return m[1] + field.substring(m[0].length());
      }
    }
    return field;
  }

  /**
   * Reads a whole endpoint (a PUT replaces every field; absent ones take their defaults). With
   * {@code existing}: masked values and absent {@code secrets} keep what is stored.
   */
  private static EventEndpoint build(ObjectNode in, String id, EventEndpoint existing, HttpServletRequest request) {
    try {
      EventEndpoint.Builder b = EventEndpoint.builder(id).tenant(EventTenant.of(request));
      String url = JsonInput.text(in, "", "url");
      String channel = JsonInput.text(in, "", "channel");
      String target = JsonInput.text(in, "", "target");
      if (url != null && (channel != null || target != null)) {
        throw ApiException.invalid("url", "give either url (a webhook) or channel and target, not both");
      }
      if (url != null) {
        b.url(url);
      } else if (channel != null && target != null) {
        if (channel.equals(NoticeDefinition.LOCAL_CHANNEL)) {
          throw ApiException.invalid("channel", "the server has no in-process handlers; use http, mail, amqp or kafka");
        }
        b.channel(channel, target);
      } else {
        throw ApiException.invalid(url == null && channel == null ? "url" : channel == null ? "channel" : "target",
            "is required: give url (a webhook), or channel and target");
      }
      b.description(JsonInput.text(in, "", "description"));
      Boolean enabled = JsonInput.bool(in, "", "enabled");
      b.enabled(enabled == null || enabled);
      b.eventTypes(types(in));
      JsonNode filter = in.get("filter");
      if (filter != null && !filter.isNull()) {
        if (!filter.isObject()) {
          throw ApiException.invalid("filter", "must be an object of payload paths and values, or null; was "
              + JsonInput.kind(filter));
        }
        b.filter(JsonInput.MAPPER.writeValueAsString(filter));
      }
      String retry = JsonInput.text(in, "", "retry");
      if (retry != null) {
        b.retry(retry);
      }
      Integer maxAttempts = JsonInput.integer(in, "", "maxAttempts");
      if (maxAttempts != null) {
        b.maxAttempts(maxAttempts);
      }
      String ordering = JsonInput.text(in, "", "ordering");
      if (ordering != null) {
        b.ordered(Ordering.parse(ordering));
      }
      String maxRate = JsonInput.text(in, "", "maxRate");
      if (maxRate != null) {
        b.maxRate(maxRate);
      }
      Integer maxConcurrency = JsonInput.integer(in, "", "maxConcurrency");
      if (maxConcurrency != null) {
        b.maxConcurrency(maxConcurrency);
      }
      Map<String, String> stored = existing == null ? Map.of() : existing.delivery().options();
      Map<String, String> headers = JsonInput.stringMap(in, "", "headers");
      (headers == null ? Map.<String, String>of() : headers).forEach(b::header);
      Map<String, String> secretHeaders = JsonInput.stringMap(in, "", "secretHeaders");
      for (Map.Entry<String, String> h : (secretHeaders == null ? Map.<String, String>of() : secretHeaders).entrySet()) {
        b.secretHeader(h.getKey(), kept(h.getValue(), stored, EventEndpoint.SECRET_HEADER_OPTION
            + h.getKey().toLowerCase(java.util.Locale.ROOT), "secretHeaders." + h.getKey()));
      }
      Map<String, String> options = JsonInput.stringMap(in, "", "options");
      for (Map.Entry<String, String> o : (options == null ? Map.<String, String>of() : options).entrySet()) {
        if (MAPPED_OPTIONS.contains(o.getKey()) || o.getKey().startsWith(EventEndpoint.HEADER_OPTION)
            || o.getKey().startsWith(EventEndpoint.SECRET_HEADER_OPTION)) {
          throw ApiException.invalid("options." + o.getKey(), "set it with the endpoint's own field (secrets, maxRate,"
              + " maxConcurrency, headers, secretHeaders)");
        }
        b.option(o.getKey(), kept(o.getValue(), stored, o.getKey(), "options." + o.getKey()));
      }
      List<String> secrets = secrets(in);
      if (secrets == null && existing != null) {
        secrets = existing.secrets();
      }
      (secrets == null ? List.<String>of() : secrets).forEach(b::secret);
      return b.build();
    } catch (InvalidInputException e) {
      throw ApiException.invalid(apiField(e.field(), JsonInput.text(in, "", "url") != null ? "http" : ""), e.reason());
    }
  }

  /** The value, or the stored one when the value is the mask. */
  private static String kept(String value, Map<String, String> stored, String key, String field) {
    if (!Views.MASK.equals(value)) {
      return value;
    }
    String s = stored.get(key);
    if (s == null) {
      throw ApiException.invalid(field, "send the value itself; " + Views.MASK + " only stands for a value already stored");
    }
    return s;
  }

  private static List<String> types(ObjectNode in) {
    JsonNode n = in.get("eventTypes");
    if (n == null || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw ApiException.invalid("eventTypes", "must be a list of event type names (\"*\" for all), was "
          + JsonInput.kind(n));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      if (!n.get(i).isString()) {
        throw ApiException.invalid("eventTypes[" + i + "]", "must be an event type name, was " + JsonInput.kind(n.get(i)));
      }
      out.add(n.get(i).stringValue());
    }
    return out;
  }

  private static List<String> secrets(ObjectNode in) {
    JsonNode n = in.get("secrets");
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isArray() || n.isEmpty()) {
      throw ApiException.invalid("secrets", "must be a non-empty list of Standard Webhooks secrets (whsec_...), newest"
          + " first; leave it out to keep the stored ones (or to get a new one at creation)");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      if (!n.get(i).isString()) {
        throw ApiException.invalid("secrets[" + i + "]", "must be a whsec_ secret, was " + JsonInput.kind(n.get(i)));
      }
      out.add(n.get(i).stringValue());
    }
    return out;
  }
}
