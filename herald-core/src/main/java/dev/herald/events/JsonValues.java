package dev.herald.events;

import dev.herald.json.JsonTree.JsonNumber;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What {@link JsonSchema} and {@link PayloadFilter} ask of a JSON value as {@link dev.herald.json.JsonTree}
 * reads it: its kind, equality by value, formats, and a short rendering for messages.
 */
final class JsonValues {
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");

  private JsonValues() {}

  static String child(String path, String name) {
    return path + "." + name;
  }

  static int whole(Object v) {
    return new BigDecimal(((JsonNumber) v).text()).min(BigDecimal.valueOf(Integer.MAX_VALUE)).intValue();
  }

  static boolean hasType(Object value, String type) {
    return switch (type) {
      case "object" -> value instanceof Map<?, ?>;
      case "array" -> value instanceof List<?>;
      case "string" -> value instanceof String;
      case "number" -> value instanceof JsonNumber;
      case "integer" -> value instanceof JsonNumber n && isWhole(n);
      case "boolean" -> value instanceof Boolean;
      default -> value == null;
    };
  }

  static boolean isWhole(JsonNumber n) {
    BigDecimal d = new BigDecimal(n.text());
    return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
  }

  static boolean hasFormat(String t, String format) {
    try {
      switch (format) {
        case "date-time" -> OffsetDateTime.parse(t);
        case "date" -> LocalDate.parse(t);
        case "uuid" -> {
          if (t.length() != 36) {
            return false;
          }
          UUID.fromString(t);
        }
        case "email" -> {
          return EMAIL.matcher(t).matches();
        }
        default -> {
          java.net.URI u = new java.net.URI(t);
          return u.getScheme() != null;
        }
      }
      return true;
    } catch (DateTimeParseException | IllegalArgumentException | java.net.URISyntaxException e) {
      return false;
    }
  }

  /** Equality of JSON values: numbers by value (1.0 equals 1), objects and arrays member by member. */
  static boolean same(Object a, Object b) {
    if (a instanceof JsonNumber x && b instanceof JsonNumber y) {
      return new BigDecimal(x.text()).compareTo(new BigDecimal(y.text())) == 0;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!same(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (!x.keySet().equals(y.keySet())) {
        return false;
      }
      for (Object key : x.keySet()) {
        if (!same(x.get(key), y.get(key))) {
          return false;
        }
      }
      return true;
    }
    return java.util.Objects.equals(a, b);
  }

  static String kind(Object value) {
    return switch (value) {
      case null -> "null";
      case Map<?, ?> m -> "an object";
      case List<?> l -> "an array";
      case String s -> "a string";
      case JsonNumber n -> isWhole(n) ? "an integer" : "a number";
      case Boolean b -> "a boolean";
      default -> value.getClass().getSimpleName();
    };
  }

  static String article(String type) {
    return switch (type) {
      case "object", "array", "integer" -> "an " + type;
      case "null" -> "null";
      default -> "a " + type;
    };
  }

  /** A value as JSON-ish text for messages, cut short. */
  static String render(Object v) {
    String s = switch (v) {
      case null -> "null";
      case String t -> "\"" + t + "\"";
      case List<?> l -> {
        List<String> parts = new ArrayList<>();
        l.forEach(x -> parts.add(render(x)));
        yield "[" + String.join(", ", parts) + "]";
      }
      default -> String.valueOf(v);
    };
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }
}
