package dev.herald.events;

import dev.herald.InvalidInputException;
import dev.herald.json.JsonTree;
import dev.herald.json.JsonTree.JsonNumber;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An endpoint's filter on payload fields: it gets an event only if every condition holds. A filter
 * is a JSON object whose keys are dotted paths into the payload ({@code order.country}, {@code
 * items.0.sku}) and whose values are either the value expected there, or an object of operators:
 * {@code $eq}, {@code $ne}, {@code $in}, {@code $nin} (a list), {@code $gt}, {@code $gte}, {@code
 * $lt}, {@code $lte} (numbers by value, strings lexicographically), {@code $exists} (true or false).
 *
 * <pre>{@code {"order.country": "DE", "order.total": {"$gte": 100}, "test": {"$ne": true}}}</pre>
 *
 * A path that is missing reads as null. Numbers compare by value ({@code 1.0} equals {@code 1}).
 */
public final class PayloadFilter {
  /** The operators a condition may use. */
  public static final Set<String> OPERATORS = Set.of("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte",
      "$exists");
  static final int MAX_LENGTH = 4000;

  private record Condition(String path, String operator, Object operand) {}

  private final String text;
  private final List<Condition> conditions;

  private PayloadFilter(String text, List<Condition> conditions) {
    this.text = text;
    this.conditions = conditions;
  }

  /**
   * Reads a filter.
   *
   * @throws InvalidInputException naming {@code field} (and the path inside it) when it is not one
   */
  public static PayloadFilter parse(String text, String field) {
    if (text.length() > MAX_LENGTH) {
      throw new InvalidInputException(field, "must be at most " + MAX_LENGTH + " characters, was " + text.length());
    }
    if (!(JsonTree.parse(text, field) instanceof Map<?, ?> root)) {
      throw new InvalidInputException(field, "must be a JSON object of payload paths and the values expected there");
    }
    List<Condition> out = new ArrayList<>();
    for (Map.Entry<?, ?> e : root.entrySet()) {
      String path = (String) e.getKey();
      String at = field + "." + path;
      if (path.isBlank() || path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
        throw new InvalidInputException(at, "must be a dotted path into the payload, such as order.country");
      }
      if (e.getValue() instanceof Map<?, ?> ops && !ops.isEmpty()
          && ops.keySet().stream().allMatch(k -> ((String) k).startsWith("$"))) {
        for (Map.Entry<?, ?> op : ops.entrySet()) {
          out.add(condition(path, (String) op.getKey(), op.getValue(), at + "." + op.getKey()));
        }
      } else {
        out.add(new Condition(path, "$eq", e.getValue()));
      }
    }
    return new PayloadFilter(text, List.copyOf(out));
  }

  private static Condition condition(String path, String op, Object operand, String at) {
    if (!OPERATORS.contains(op)) {
      throw new InvalidInputException(at, "unknown operator; the operators are "
          + String.join(", ", new java.util.TreeSet<>(OPERATORS)));
    }
    switch (op) {
      case "$in", "$nin" -> {
        if (!(operand instanceof List<?>)) {
          throw new InvalidInputException(at, "must be a list of values");
        }
      }
      case "$gt", "$gte", "$lt", "$lte" -> {
        if (!(operand instanceof JsonNumber) && !(operand instanceof String)) {
          throw new InvalidInputException(at, "must be a number or a string");
        }
      }
      case "$exists" -> {
        if (!(operand instanceof Boolean)) {
          throw new InvalidInputException(at, "must be true or false");
        }
      }
      default -> { }
    }
    return new Condition(path, op, operand);
  }

  /** The filter as given. */
  public String text() {
    return text;
  }

  /** Whether a payload (as {@link JsonTree#parse} reads it) passes every condition. */
  public boolean matches(Object payload) {
    for (Condition c : conditions) {
      if (!holds(c, payload)) {
        return false;
      }
    }
    return true;
  }

  private static boolean holds(Condition c, Object payload) {
    Object value = JsonTree.at(payload, c.path());
    return switch (c.operator()) {
      case "$eq" -> JsonValues.same(c.operand(), value);
      case "$ne" -> !JsonValues.same(c.operand(), value);
      case "$in" -> ((List<?>) c.operand()).stream().anyMatch(o -> JsonValues.same(o, value));
      case "$nin" -> ((List<?>) c.operand()).stream().noneMatch(o -> JsonValues.same(o, value));
      case "$exists" -> (present(payload, c.path())) == (Boolean) c.operand();
      default -> {
        Integer cmp = compare(value, c.operand());
        yield cmp != null && switch (c.operator()) {
          case "$gt" -> cmp > 0;
          case "$gte" -> cmp >= 0;
          case "$lt" -> cmp < 0;
          default -> cmp <= 0;
        };
      }
    };
  }

  /** Whether the path leads to a member (JSON null counts as present). */
  private static boolean present(Object payload, String path) {
    int dot = path.lastIndexOf('.');
    Object parent = dot < 0 ? payload : JsonTree.at(payload, path.substring(0, dot));
    String last = path.substring(dot + 1);
    if (parent instanceof Map<?, ?> m) {
      return m.containsKey(last);
    }
    return parent instanceof List<?> l && last.matches("\\d{1,9}") && Integer.parseInt(last) < l.size();
  }

  /** The order of two numbers or two strings; null when they are not comparable. */
  private static Integer compare(Object value, Object operand) {
    if (value instanceof JsonNumber a && operand instanceof JsonNumber b) {
      return new BigDecimal(a.text()).compareTo(new BigDecimal(b.text()));
    }
    if (value instanceof String a && operand instanceof String b) {
      return Integer.signum(a.compareTo(b));
    }
    return null;
  }
}
