package dev.herald.server;

import dev.herald.JsonPayload;
import dev.herald.schedule.DurationText;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads request bodies as JSON trees and their fields with exact paths: every refusal names the field
 * as the caller wrote it ({@code notices[3].fireAt}) and says what was expected. Typed binding would
 * report Java types and positions instead; reading the tree by hand keeps the messages the API's own.
 */
final class JsonInput {
  /** Numbers are read exactly (no double rounding) so that payloads keep their values. */
  static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
      .build();

  /** Field names from document 002's API, and what this API calls them. */
  private static final Map<String, String> RENAMED = Map.of(
      "content", "payload", "notifyUrl", "callbackUrl", "notifyTime", "fireAt", "taskId", "id", "taskIds", "ids",
      "url", "callbackUrl", "notify_url", "callbackUrl");

  private JsonInput() {}

  // ------------------------------------------------------------------------------------ the body

  /** 415 unless the request says its body is JSON. */
  static void requireJson(HttpServletRequest request) {
    String type = request.getContentType();
    if (type == null || !isJson(type)) {
      throw ApiException.unsupportedMediaType("send the body as JSON with Content-Type: application/json"
          + (type == null ? " (no Content-Type was given)" : " (was " + type + ")"));
    }
  }

  private static boolean isJson(String contentType) {
    String t = contentType.toLowerCase(Locale.ROOT).split(";")[0].strip();
    return t.equals("application/json") || (t.startsWith("application/") && t.endsWith("+json"));
  }

  /**
   * A notice's payload as JSON text: as read from the request ({@link JsonBody.RawPayload}), or
   * written from a tree.
   *
   * @throws ApiException 400 naming {@code field} when it passed the payload limit
   */
  static JsonPayload payload(JsonNode n, String field) {
    if (n instanceof tools.jackson.databind.node.POJONode pojo && pojo.getPojo() instanceof JsonBody.RawPayload raw) {
      if (raw.tooLarge()) {
        throw ApiException.invalid(field, "is more than " + raw.limit() + " bytes; the limit is " + raw.limit()
            + " (herald.max-payload-bytes)");
      }
      return raw.json();
    }
    return JsonPayload.of(MAPPER.writeValueAsString(n));
  }

  // ------------------------------------------------------------------------------------ paths

  static String child(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  static String index(String path, int i) {
    return path + "[" + i + "]";
  }

  // ------------------------------------------------------------------------------------ fields

  static ObjectNode object(JsonNode n, String path) {
    if (n == null || !n.isObject()) {
      throw ApiException.invalid(path.isEmpty() ? "body" : path, "must be a JSON object, was " + kind(n));
    }
    return (ObjectNode) n;
  }

  /** Refuses fields other than {@code allowed}, suggesting the right name for document 002's names. */
  static void only(ObjectNode o, String path, Collection<String> allowed) {
    for (String name : o.propertyNames()) {
      if (!allowed.contains(name)) {
        String hint = RENAMED.containsKey(name) && allowed.contains(RENAMED.get(name))
            ? "unknown field; did you mean " + RENAMED.get(name) + "?"
            : "unknown field; expected " + String.join(", ", allowed);
        throw ApiException.invalid(child(path, name), hint);
      }
    }
  }

  static boolean has(ObjectNode o, String name) {
    JsonNode n = o.get(name);
    return n != null && !n.isNull();
  }

  static String text(ObjectNode o, String path, String name) {
    JsonNode n = o.get(name);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isString()) {
      throw ApiException.invalid(child(path, name), "must be a string, was " + kind(n));
    }
    return n.stringValue();
  }

  static String requiredText(ObjectNode o, String path, String name) {
    String s = text(o, path, name);
    if (s == null) {
      throw ApiException.invalid(child(path, name), "is required");
    }
    return s;
  }

  static Integer integer(ObjectNode o, String path, String name) {
    JsonNode n = o.get(name);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw ApiException.invalid(child(path, name), "must be a whole number, was " + kind(n));
    }
    return n.intValue();
  }

  static Boolean bool(ObjectNode o, String path, String name) {
    JsonNode n = o.get(name);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isBoolean()) {
      throw ApiException.invalid(child(path, name), "must be true or false, was " + kind(n));
    }
    return n.booleanValue();
  }

  static Instant instant(ObjectNode o, String path, String name) {
    String s = text(o, path, name);
    return s == null ? null : instant(s, child(path, name));
  }

  /** An ISO-8601 instant with an offset: {@code 2026-05-01T12:00:00Z} or {@code 2026-05-01T20:00:00+08:00}. */
  static Instant instant(String s, String field) {
    try {
      return Instant.parse(s.strip());
    } catch (DateTimeParseException e) {
      try {
        return OffsetDateTime.parse(s.strip()).toInstant();
      } catch (DateTimeParseException e2) {
        throw ApiException.invalid(field, "must be an ISO-8601 time with a zone offset, e.g. 2026-05-01T12:00:00Z or"
            + " 2026-05-01T20:00:00+08:00; was '" + s + "'");
      }
    }
  }

  /** A Herald duration: a whole number and ms, s, m, h or d ({@code 30s}, {@code 10m}). */
  static Duration duration(ObjectNode o, String path, String name) {
    String s = text(o, path, name);
    return s == null ? null : DurationText.parse(s, child(path, name));
  }

  static ArrayNode array(ObjectNode o, String path, String name) {
    JsonNode n = o.get(name);
    if (n == null || n.isNull()) {
      throw ApiException.invalid(child(path, name), "is required: a JSON array");
    }
    if (!n.isArray()) {
      throw ApiException.invalid(child(path, name), "must be a JSON array, was " + kind(n));
    }
    return (ArrayNode) n;
  }

  /** A required, non-empty array of at most {@code max} items. */
  static ArrayNode batch(ObjectNode o, String path, String name, int max) {
    ArrayNode a = array(o, path, name);
    if (a.isEmpty()) {
      throw ApiException.invalid(child(path, name), "must hold at least one item");
    }
    if (a.size() > max) {
      throw ApiException.invalid(child(path, name), "holds " + a.size() + " items; the limit is " + max
          + " per request (herald.server.max-batch)");
    }
    return a;
  }

  static Map<String, String> stringMap(ObjectNode o, String path, String name) {
    JsonNode n = o.get(name);
    if (n == null || n.isNull()) {
      return null;
    }
    ObjectNode m = object(n, child(path, name));
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : m.properties()) {
      if (!e.getValue().isString()) {
        throw ApiException.invalid(child(child(path, name), e.getKey()), "must be a string, was " + kind(e.getValue()));
      }
      out.put(e.getKey(), e.getValue().stringValue());
    }
    return out;
  }

  static UUID uuid(JsonNode n, String field) {
    if (n == null || n.isNull()) {
      throw ApiException.invalid(field, "is required: a notice id");
    }
    if (!n.isString()) {
      throw ApiException.invalid(field, "must be a notice id (a UUID string), was " + kind(n));
    }
    return uuid(n.stringValue(), field);
  }

  static UUID uuid(String s, String field) {
    try {
      if (s.length() != 36) {
        throw new IllegalArgumentException();
      }
      return UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(field, "must be a notice id (a UUID such as 0197a3c2-5a4e-7b61-9a3e-2f9d1c0b8e77),"
          + " was '" + abbreviate(s) + "'");
    }
  }

  /** Ids from {@code {"ids": [...]}}. */
  static List<UUID> ids(ObjectNode o, int max) {
    ArrayNode a = batch(o, "", "ids", max);
    List<UUID> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      out.add(uuid(a.get(i), index("ids", i)));
    }
    return out;
  }

  static String kind(JsonNode n) {
    if (n == null || n.isNull()) {
      return "null";
    }
    return switch (n.getNodeType()) {
      case STRING -> "the string \"" + abbreviate(n.stringValue()) + "\"";
      case NUMBER -> "the number " + n.toString();
      case BOOLEAN -> n.toString();
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      default -> n.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
