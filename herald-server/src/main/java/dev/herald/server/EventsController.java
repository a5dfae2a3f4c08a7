package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Page;
import dev.herald.Traceparent;
import dev.herald.events.EventRequest;
import dev.herald.events.PublishedEvent;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Events: publishing one (a notice for each endpoint subscribed to its type, all written in one
 * transaction or none), and reading them back with their deliveries: "this event went to these 6
 * endpoints; 5 took it". Every token may publish and read.
 */
@RestController
@RequestMapping("/api/v1/events")
@Requires(Permission.READ)
class EventsController {
  static final Set<String> FIELDS = Set.of("type", "payload", "idempotencyKey", "orderingKey", "fireAt", "traceparent");
  private static final Set<String> SEARCH_PARAMS = Set.of("type", "createdFrom", "createdTo", "offset", "limit");

  private final Herald herald;
  private final RequestBodies bodies;
  private final NoticeOwners owners;

  EventsController(Herald herald, RequestBodies bodies, NoticeOwners owners) {
    this.herald = herald;
    this.bodies = bodies;
    this.owners = owners;
  }

  @PostMapping
  @Requires(Permission.CREATE_NOTICES)
  ResponseEntity<ObjectNode> publish(HttpServletRequest request) {
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", FIELDS);
    String type = JsonInput.requiredText(in, "", "type");
    JsonNode payload = in.get("payload");
    if (payload == null) {
      throw ApiException.invalid("payload", "is required: the event's JSON (an object, array or value)");
    }
    EventRequest r = EventRequest.of(type, JsonInput.MAPPER.writeValueAsString(payload)).tenant(EventTenant.of(request))
        .idempotencyKey(JsonInput.text(in, "", "idempotencyKey"))
        .orderingKey(JsonInput.text(in, "", "orderingKey"))
        .fireAt(JsonInput.instant(in, "", "fireAt"));
    String traceparent = JsonInput.text(in, "", "traceparent");
    if (traceparent != null && !Traceparent.isValid(traceparent)) {
      throw ApiException.invalid("traceparent", "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2"
          + " hex flags>");
    }
    r = r.traceparent(traceparent != null ? traceparent : Traceparent.orNull(request.getHeader(Traceparent.HEADER)));
    PublishedEvent published;
    EventRequest event = r;
    try {
      published = herald.inTransactionWithoutSavepoints(tx -> { // no savepoints: held from the insert on
        PublishedEvent p = tx.publish(event);
        if (p.created()) {
          // the notices are the tenant's, as the notices routes and the console see them
          owners.write(tx.connection(), p.deliveries().stream().map(d -> d.noticeId()).toList(), event.tenant());
        }
        return p;
      });
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
    return ResponseEntity.status(published.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .header("Location", "/api/v1/events/" + published.event().id())
        .body(EventViews.event(published));
  }

  @GetMapping
  ObjectNode list(@RequestParam MultiValueMap<String, String> params, HttpServletRequest request) {
    for (String p : params.keySet()) {
      if (!SEARCH_PARAMS.contains(p)) {
        throw ApiException.invalid(p, "unknown parameter; expected " + String.join(", ", SEARCH_PARAMS));
      }
    }
    String from = params.getFirst("createdFrom");
    String to = params.getFirst("createdTo");
    Instant f = from == null ? null : JsonInput.instant(from, "createdFrom");
    Instant t = to == null ? null : JsonInput.instant(to, "createdTo");
    String type = params.getFirst("type");
    Page<PublishedEvent> page;
    try {
      page = herald.events().list(EventTenant.of(request), type == null || type.isBlank() ? null : type, f, t,
          intParam(params, "offset", 0), intParam(params, "limit", 50));
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    page.items().forEach(e -> items.add(EventViews.event(e)));
    out.put("offset", page.offset());
    out.put("limit", page.limit());
    out.put("hasMore", page.hasMore());
    return out;
  }

  @GetMapping("/{id}")
  ObjectNode get(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = JsonInput.uuid(id, "id");
    return EventViews.event(herald.events().find(EventTenant.of(request), uuid)
        .orElseThrow(() -> ApiException.notFound("no event " + id)));
  }

  static int intParam(MultiValueMap<String, String> params, String name, int fallback) {
    List<String> v = params.get(name);
    if (v == null || v.isEmpty() || v.getFirst().isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.getFirst().strip());
    } catch (NumberFormatException e) {
      throw ApiException.invalid(name, "must be a whole number, was '" + v.getFirst() + "'");
    }
  }
}
