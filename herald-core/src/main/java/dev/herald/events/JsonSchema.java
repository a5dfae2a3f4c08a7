package dev.herald.events;

import static dev.herald.events.JsonValues.article;
import static dev.herald.events.JsonValues.child;
import static dev.herald.events.JsonValues.hasFormat;
import static dev.herald.events.JsonValues.hasType;
import static dev.herald.events.JsonValues.kind;
import static dev.herald.events.JsonValues.render;
import static dev.herald.events.JsonValues.same;
import static dev.herald.events.JsonValues.whole;

import dev.herald.InvalidInputException;
import dev.herald.json.JsonTree;
import dev.herald.json.JsonTree.JsonNumber;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * An event type's payload schema: a documented subset of JSON Schema (draft 2020-12) checked at
 * publish, so that a payload a partner cannot read is refused with the path that failed ({@code
 * payload.order.items[2].sku: must be a string, was a number}) before anything is written.
 *
 * <p>Assertions: {@code type} (one or a list of object, array, string, number, integer, boolean,
 * null), {@code properties}, {@code required}, {@code additionalProperties} (false or a schema),
 * {@code items}, {@code minItems}, {@code maxItems}, {@code enum}, {@code const}, {@code minimum},
 * {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum}, {@code minLength}, {@code
 * maxLength}, {@code pattern} (Java regex, searched as JSON Schema says), {@code format} (date-time,
 * date, uuid, email, uri; others are refused), {@code allOf}, {@code anyOf}, {@code oneOf}, {@code
 * not}, and {@code $ref} to {@code #/$defs/<name>} or {@code #/definitions/<name>}. Annotations
 * ({@code $schema}, {@code $id}, {@code title}, {@code description}, {@code default}, {@code
 * examples}, {@code $comment}, {@code deprecated}, {@code readOnly}, {@code writeOnly}) are allowed
 * and ignored. Any other keyword is refused when the schema is saved, so that no one believes a
 * rule is enforced that is not.
 */
public final class JsonSchema {
  /** The assertions this subset checks. */
  public static final Set<String> ASSERTIONS = Set.of("type", "properties", "required", "additionalProperties",
      "items", "minItems", "maxItems", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
      "minLength", "maxLength", "pattern", "format", "allOf", "anyOf", "oneOf", "not", "$ref");
  private static final Set<String> ANNOTATIONS = Set.of("$schema", "$id", "title", "description", "default",
      "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$defs", "definitions");
  private static final Set<String> TYPES = Set.of("object", "array", "string", "number", "integer", "boolean", "null");
  private static final Set<String> FORMATS = Set.of("date-time", "date", "uuid", "email", "uri");
  private static final int MAX_REF_DEPTH = 64;

  private final String text;
  private final Object root;
  private final Map<String, Pattern> patterns = new LinkedHashMap<>();

  private JsonSchema(String text, Object root) {
    this.text = text;
    this.root = root;
  }

  /**
   * Reads and checks a schema.
   *
   * @param field the field reported when the schema is refused, e.g. {@code schema}
   * @throws InvalidInputException naming {@code field} and the keyword's place in the schema
   */
  public static JsonSchema parse(String text, String field) {
    Object root = JsonTree.parse(text, field);
    JsonSchema s = new JsonSchema(text, root);
    s.check(root, field, "#");
    return s;
  }

  /** The schema as given. */
  public String text() {
    return text;
  }

  /**
   * Refuses a value the schema does not accept.
   *
   * @param value the value as {@link JsonTree#parse} reads it
   * @param path the value's path, e.g. {@code payload}; errors name the path inside it
   * @throws InvalidInputException naming the first path that failed
   */
  public void validate(Object value, String path) {
    String why = failure(root, value, path, 0);
    if (why != null) {
      int colon = why.indexOf(": ");
      throw new InvalidInputException(why.substring(0, colon), why.substring(colon + 2));
    }
  }

  // ------------------------------------------------------------------------------------ checking the schema

  private void check(Object schema, String field, String at) {
    if (schema instanceof Boolean) {
      return;
    }
    if (!(schema instanceof Map<?, ?> raw)) {
      throw new InvalidInputException(field, "at " + at + ": a schema must be an object or a boolean");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> s = (Map<String, Object>) raw;
    for (Map.Entry<String, Object> e : s.entrySet()) {
      String k = e.getKey();
      Object v = e.getValue();
      String here = at + "/" + k;
      if (ANNOTATIONS.contains(k)) {
        if ((k.equals("$defs") || k.equals("definitions"))) {
          if (!(v instanceof Map<?, ?> defs)) {
            throw new InvalidInputException(field, "at " + here + ": must be an object of schemas");
          }
          defs.forEach((name, d) -> check(d, field, here + "/" + name));
        }
        continue;
      }
      if (!ASSERTIONS.contains(k)) {
        throw new InvalidInputException(field, "at " + here + ": keyword '" + k + "' is not supported by Herald's"
            + " JSON Schema subset; supported: " + String.join(", ", new java.util.TreeSet<>(ASSERTIONS)));
      }
      switch (k) {
        case "type" -> {
          List<?> types = v instanceof List<?> l ? l : List.of(v == null ? "" : v);
          for (Object t : types) {
            if (!(t instanceof String name) || !TYPES.contains(name)) {
              throw new InvalidInputException(field, "at " + here + ": '" + t + "' is not a type; types: "
                  + String.join(", ", new java.util.TreeSet<>(TYPES)));
            }
          }
        }
        case "properties" -> {
          if (!(v instanceof Map<?, ?> props)) {
            throw new InvalidInputException(field, "at " + here + ": must be an object of schemas");
          }
          props.forEach((name, p) -> check(p, field, here + "/" + name));
        }
        case "required" -> {
          if (!(v instanceof List<?> l) || l.stream().anyMatch(x -> !(x instanceof String))) {
            throw new InvalidInputException(field, "at " + here + ": must be a list of property names");
          }
        }
        case "additionalProperties", "items", "not" -> check(v, field, here);
        case "allOf", "anyOf", "oneOf" -> {
          if (!(v instanceof List<?> l) || l.isEmpty()) {
            throw new InvalidInputException(field, "at " + here + ": must be a non-empty list of schemas");
          }
          for (int i = 0; i < l.size(); i++) {
            check(l.get(i), field, here + "/" + i);
          }
        }
        case "enum" -> {
          if (!(v instanceof List<?>)) {
            throw new InvalidInputException(field, "at " + here + ": must be a list of values");
          }
        }
        case "const" -> { }
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" -> number(v, field, here);
        case "minLength", "maxLength", "minItems", "maxItems" -> {
          BigDecimal n = number(v, field, here);
          if (n.signum() < 0 || n.stripTrailingZeros().scale() > 0) {
            throw new InvalidInputException(field, "at " + here + ": must be a whole number >= 0");
          }
        }
        case "pattern" -> {
          if (!(v instanceof String p)) {
            throw new InvalidInputException(field, "at " + here + ": must be a regular expression (a string)");
          }
          try {
            patterns.put(p, Pattern.compile(p));
          } catch (PatternSyntaxException ex) {
            throw new InvalidInputException(field, "at " + here + ": not a regular expression: " + ex.getDescription());
          }
        }
        case "format" -> {
          if (!(v instanceof String f) || !FORMATS.contains(f)) {
            throw new InvalidInputException(field, "at " + here + ": format '" + v + "' is not checked by Herald;"
                + " checked: " + String.join(", ", new java.util.TreeSet<>(FORMATS)));
          }
        }
        case "$ref" -> {
          if (!(v instanceof String ref) || resolve(ref) == null) {
            throw new InvalidInputException(field, "at " + here + ": '" + v + "' does not name a schema under"
                + " #/$defs/ or #/definitions/ of this schema");
          }
        }
        default -> throw new IllegalStateException(k);
      }
    }
  }

  private static BigDecimal number(Object v, String field, String at) {
    if (!(v instanceof JsonNumber n)) {
      throw new InvalidInputException(field, "at " + at + ": must be a number");
    }
    return new BigDecimal(n.text());
  }

  @SuppressWarnings("unchecked")
  private Object resolve(String ref) {
    for (String prefix : List.of("#/$defs/", "#/definitions/")) {
      if (ref.startsWith(prefix) && root instanceof Map<?, ?> r && r.get(prefix.substring(2, prefix.length() - 1))
          instanceof Map<?, ?> defs) {
        return ((Map<String, Object>) defs).get(ref.substring(prefix.length()));
      }
    }
    return null;
  }

  // ------------------------------------------------------------------------------------ validating

  /** {@code path: reason} of the first failure, or null if the value passes. */
  @SuppressWarnings("unchecked")
  private String failure(Object schema, Object value, String path, int refs) {
    if (schema instanceof Boolean b) {
      return b ? null : path + ": is not allowed here";
    }
    Map<String, Object> s = (Map<String, Object>) schema;
    for (Map.Entry<String, Object> e : s.entrySet()) {
      String why = keyword(e.getKey(), e.getValue(), s, value, path, refs);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private String keyword(String k, Object v, Map<String, Object> s, Object value, String path, int refs) {
    switch (k) {
      case "type" -> {
        List<?> types = v instanceof List<?> l ? l : List.of(v);
        for (Object t : types) {
          if (hasType(value, (String) t)) {
            return null;
          }
        }
        return path + ": must be " + (types.size() == 1 ? article((String) types.getFirst())
            : "one of " + types) + ", was " + kind(value);
      }
      case "properties" -> {
        if (value instanceof Map<?, ?> m) {
          for (Map.Entry<String, Object> p : ((Map<String, Object>) v).entrySet()) {
            if (m.containsKey(p.getKey())) {
              String why = failure(p.getValue(), m.get(p.getKey()), child(path, p.getKey()), refs);
              if (why != null) {
                return why;
              }
            }
          }
        }
        return null;
      }
      case "required" -> {
        if (value instanceof Map<?, ?> m) {
          for (Object name : (List<?>) v) {
            if (!m.containsKey(name)) {
              return child(path, (String) name) + ": is required";
            }
          }
        }
        return null;
      }
      case "additionalProperties" -> {
        if (value instanceof Map<?, ?> m) {
          Map<String, Object> props = s.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
          for (Map.Entry<?, ?> member : m.entrySet()) {
            String name = (String) member.getKey();
            if (!props.containsKey(name)) {
              if (Boolean.FALSE.equals(v)) {
                return child(path, name) + ": is not a known property (additionalProperties is false); known: "
                    + props.keySet();
              }
              String why = failure(v, member.getValue(), child(path, name), refs);
              if (why != null) {
                return why;
              }
            }
          }
        }
        return null;
      }
      case "items" -> {
        if (value instanceof List<?> l) {
          for (int i = 0; i < l.size(); i++) {
            String why = failure(v, l.get(i), path + "[" + i + "]", refs);
            if (why != null) {
              return why;
            }
          }
        }
        return null;
      }
      case "minItems" -> {
        return value instanceof List<?> l && l.size() < whole(v) ? path + ": must have at least " + whole(v)
            + " item(s), has " + l.size() : null;
      }
      case "maxItems" -> {
        return value instanceof List<?> l && l.size() > whole(v) ? path + ": must have at most " + whole(v)
            + " item(s), has " + l.size() : null;
      }
      case "enum" -> {
        for (Object option : (List<?>) v) {
          if (same(option, value)) {
            return null;
          }
        }
        return path + ": must be one of " + render(v) + ", was " + render(value);
      }
      case "const" -> {
        return same(v, value) ? null : path + ": must be " + render(v) + ", was " + render(value);
      }
      case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" -> {
        if (!(value instanceof JsonNumber n)) {
          return null;
        }
        int cmp = new BigDecimal(n.text()).compareTo(new BigDecimal(((JsonNumber) v).text()));
        boolean ok = switch (k) {
          case "minimum" -> cmp >= 0;
          case "maximum" -> cmp <= 0;
          case "exclusiveMinimum" -> cmp > 0;
          default -> cmp < 0;
        };
        String rule = switch (k) {
          case "minimum" -> "at least ";
          case "maximum" -> "at most ";
          case "exclusiveMinimum" -> "more than ";
          default -> "less than ";
        };
        return ok ? null : path + ": must be " + rule + v + ", was " + n;
      }
      case "minLength" -> {
        return value instanceof String t && t.codePointCount(0, t.length()) < whole(v)
            ? path + ": must be at least " + whole(v) + " character(s) long" : null;
      }
      case "maxLength" -> {
        return value instanceof String t && t.codePointCount(0, t.length()) > whole(v)
            ? path + ": must be at most " + whole(v) + " character(s) long" : null;
      }
      case "pattern" -> {
        return value instanceof String t && !patterns.get((String) v).matcher(t).find()
            ? path + ": must match the pattern " + v : null;
      }
      case "format" -> {
        return value instanceof String t && !hasFormat(t, (String) v) ? path + ": must be a " + v + ", was "
            + render(t) : null;
      }
      case "allOf" -> {
        for (Object sub : (List<?>) v) {
          String why = failure(sub, value, path, refs);
          if (why != null) {
            return why;
          }
        }
        return null;
      }
      case "anyOf" -> {
        String first = null;
        for (Object sub : (List<?>) v) {
          String why = failure(sub, value, path, refs);
          if (why == null) {
            return null;
          }
          first = first == null ? why : first;
        }
        return path + ": matches none of the anyOf schemas (the first says " + first + ")";
      }
      case "oneOf" -> {
        int matches = 0;
        String first = null;
        for (Object sub : (List<?>) v) {
          String why = failure(sub, value, path, refs);
          if (why == null) {
            matches++;
          } else if (first == null) {
            first = why;
          }
        }
        return matches == 1 ? null : matches == 0
            ? path + ": matches none of the oneOf schemas (the first says " + first + ")"
            : path + ": matches " + matches + " of the oneOf schemas; exactly one must match";
      }
      case "not" -> {
        return failure(v, value, path, refs) == null ? path + ": must not match the schema under not" : null;
      }
      case "$ref" -> {
        if (refs >= MAX_REF_DEPTH) {
          return path + ": the schema's $ref chain is deeper than " + MAX_REF_DEPTH;
        }
        return failure(resolve((String) v), value, path, refs + 1);
      }
      default -> {
        return null; // annotations
      }
    }
  }

}
