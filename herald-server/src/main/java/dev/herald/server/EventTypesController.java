package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.events.EventType;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
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
 * Event types: the kinds of events endpoints subscribe to, each with an optional JSON Schema that
 * published payloads must match. Reading is open to every token; changing needs an admin token.
 */
@RestController
@RequestMapping("/api/v1/event-types")
@Requires(Permission.READ)
class EventTypesController {
  static final Set<String> FIELDS = Set.of("name", "description", "schema");

  private final Herald herald;
  private final RequestBodies bodies;

  EventTypesController(Herald herald, RequestBodies bodies) {
    this.herald = herald;
    this.bodies = bodies;
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    herald.events().types(EventTenant.of(request)).forEach(t -> items.add(EventViews.type(t)));
    return out;
  }

  @GetMapping("/{name}")
  ObjectNode get(@PathVariable("name") String name, HttpServletRequest request) {
    return EventViews.type(require(request, name));
  }

  @PostMapping
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    ObjectNode in = body(request);
    String name = JsonInput.requiredText(in, "", "name");
    if (herald.events().findType(EventTenant.of(request), name).isPresent()) {
      throw ApiException.conflict("already_exists", "event type '" + name + "' exists; change it with PUT"
          + " /api/v1/event-types/" + name);
    }
    EventType saved = herald.events().saveType(build(in, name, request));
    return ResponseEntity.created(URI.create("/api/v1/event-types/" + saved.name())).body(EventViews.type(saved));
  }

  @PutMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode update(@PathVariable("name") String name, HttpServletRequest request) {
    ObjectNode in = body(request);
    require(request, name);
    String given = JsonInput.text(in, "", "name");
    if (given != null && !given.equals(name)) {
      throw ApiException.invalid("name", "'" + given + "' differs from the name in the path, '" + name
          + "'; an event type cannot be renamed");
    }
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
    return herald.events().findType(EventTenant.of(request), name)
        .orElseThrow(() -> ApiException.notFound("no event type named '" + name + "'"));
  }

  private ObjectNode body(HttpServletRequest request) {
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", FIELDS);
    return in;
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
