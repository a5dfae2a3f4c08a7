package dev.herald.server;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How the API answers alike for each kind of named thing it keeps (definitions, tenants, event types,
 * event endpoints, recurring schedules): the list, 404 for one not found (or not the caller's), 409 for
 * a name already taken, 400 for a body naming another one than the path, 201 with its location. One
 * per controller, holding its words, so that each answer reads as it always has.
 *
 * @param key the field and path variable that names one: {@code name} or {@code id}
 * @param path the collection's path, e.g. {@code /api/v1/event-types}
 * @param noun what one is called in a 409, e.g. {@code event type}
 * @param missing how a 404 starts, before the quoted name, e.g. {@code no event type named}
 * @param renamed what a 400 for another name adds, e.g. {@code an event type cannot be renamed}; null for nothing
 */
record ApiResource(String key, String path, String noun, String missing, String renamed) {

  /** {@code {"items": [...]}}, each as {@code view} shows it. */
  static <T> ObjectNode items(List<T> all, Function<? super T, ? extends JsonNode> view) {
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    all.forEach(t -> items.add(view.apply(t)));
    return out;
  }

  /** The one found, or 404 naming {@code id}. */
  <T> T found(Optional<T> found, String id) {
    return found.orElseThrow(() -> ApiException.notFound(missing + " '" + id + "'"));
  }

  /** 409 {@code already_exists} when {@code id} is {@code taken}, pointing at PUT. */
  void refuseTaken(boolean taken, String id) {
    if (taken) {
      throw ApiException.conflict("already_exists", noun + " '" + id + "' exists; change it with PUT " + path + "/"
          + id);
    }
  }

  /** 400 when the body names another one than {@code id}, the one in the path. */
  void refuseRename(ObjectNode in, String id) {
    String given = JsonInput.text(in, "", key);
    if (given != null && !given.equals(id)) {
      throw ApiException.invalid(key, "'" + given + "' differs from the " + key + " in the path, '" + id + "'"
          + (renamed == null ? "" : "; " + renamed));
    }
  }

  /** 201 with the location of {@code id} and {@code body}. */
  ResponseEntity<ObjectNode> created(String id, ObjectNode body) {
    return ResponseEntity.created(URI.create(path + "/" + id)).body(body);
  }
}
