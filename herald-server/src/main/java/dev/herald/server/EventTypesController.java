package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.events.EventType;
import jakarta.servlet.http.HttpServletRequest;
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
import tools.jackson.databind.node.ObjectNode;

/**
 * Event types: the kinds of events endpoints subscribe to, each with an optional JSON Schema that
 * published payloads must match. Reading is open to every token; changing needs an admin token.
 */
@RestController
@RequestMapping("/api/v1/event-types")
@Requires(Permission.READ)
class EventTypesController {
  static final Set<String> FIELDS = Set.of("name", "description", "schema");
  private static final ApiResource TYPES = new ApiResource("name", "/api/v1/event-types", "event type",
      "no event type named", "an event type cannot be renamed");

  private final Herald herald;
  private final RequestBodies bodies;

  EventTypesController(Herald herald, RequestBodies bodies) {
    this.herald = herald;
    this.bodies = bodies;
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    return ApiResource.items(herald.events().types(EventTenant.of(request)), EventViews::type);
  }

  @GetMapping("/{name}")
  ObjectNode get(@PathVariable("name") String name, HttpServletRequest request) {
    return EventViews.type(require(request, name));
  }

  @PostMapping
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    String name = JsonInput.requiredText(in, "", "name");
    TYPES.refuseTaken(herald.events().findType(EventTenant.of(request), name).isPresent(), name);
    EventType saved = herald.events().saveType(build(in, name, request));
    return TYPES.created(saved.name(), EventViews.type(saved));
  }

  @PutMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode update(@PathVariable("name") String name, HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    require(request, name);
    TYPES.refuseRename(in, name);
    return EventViews.type(herald.events().saveType(build(in, name, request)));
  }

  @DeleteMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<Void> delete(@PathVariable("name") String name, HttpServletRequest request) {
    require(request, name);
    herald.events().deleteType(EventTenant.of(request), name);
    return ResponseEntity.noContent().build();
  }

  private EventType require(HttpServletRequest request, String name) {
    return TYPES.found(herald.events().findType(EventTenant.of(request), name), name);
  }

  private static EventType build(ObjectNode in, String name, HttpServletRequest request) {
    JsonNode schema = in.get("schema");
    if (schema != null && !schema.isNull() && !schema.isObject() && !schema.isBoolean()) {
      throw ApiException.invalid("schema", "must be a JSON Schema (an object), or null for any payload; was "
          + JsonInput.kind(schema));
    }
    try {
      return new EventType(EventTenant.of(request), name, JsonInput.text(in, "", "description"),
          schema == null || schema.isNull() ? null : JsonInput.MAPPER.writeValueAsString(schema), null, null);
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
  }
}
