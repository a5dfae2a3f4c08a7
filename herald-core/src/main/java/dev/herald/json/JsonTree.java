package dev.herald.json;

import dev.herald.InvalidInputException;
import dev.herald.internal.JsonText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON text into plain Java values, for channels that look inside a payload (mail
 * placeholders) and intakes that read an envelope. Objects become {@link Map}s (in document order),
 * arrays {@link List}s, strings {@link String}s, numbers their literal text as a {@link JsonNumber},
 * {@code true}/{@code false} {@link Boolean}s and {@code null} null. The text is checked first by
 * Herald's own syntax check, so a malformed document is refused with the same precise reason.
 */
public final class JsonTree {
  /** A number, kept as written so that {@code 42} stays {@code 42} and {@code 1e3} stays {@code 1e3}. */
  public record JsonNumber(String text) {
    @Override
    public String toString() {
      return text;
    }
  }

  private final String text;
  private int pos;
  private final Map<String, String> rawMembers = new LinkedHashMap<>();

  private JsonTree(String text) {
    this.text = text;
  }

  /**
   * Parses {@code json}.
   *
   * @param field the field path reported when the text is refused
   * @throws InvalidInputException naming {@code field} if the text is not one JSON value
   */
  public static Object parse(String json, String field) {
    JsonText.requireValid(json, field);
    JsonTree t = new JsonTree(json);
    t.skipSpace();
    return t.value(0);
  }

  /**
   * The members of a JSON object, each as its exact text (so a payload member can be stored as
   * given).
   *
   * @throws InvalidInputException naming {@code field} if the text is not one JSON object
   */
  public static Map<String, String> rawMembers(String json, String field) {
    JsonText.requireValid(json, field);
    JsonTree t = new JsonTree(json);
    t.skipSpace();
    if (t.peek() != '{') {
      throw new InvalidInputException(field, "must be a JSON object");
    }
    t.value(0);
    return t.rawMembers;
  }

  /**
   * The value at a dotted path such as {@code order.id} or {@code items.0.sku}; null if there is
   * none (or it is JSON null).
   */
  @SuppressWarnings("unchecked")
  public static Object at(Object root, String path) {
    Object cur = root;
    for (String part : path.split("\\.", -1)) {
      if (cur instanceof Map<?, ?> m) {
        cur = ((Map<String, Object>) m).get(part);
      } else if (cur instanceof List<?> l && part.matches("\\d{1,9}") && Integer.parseInt(part) < l.size()) {
        cur = l.get(Integer.parseInt(part));
      } else {
        return null;
      }
    }
    return cur;
  }

  private Object value(int depth) {
    char c = peek();
    switch (c) {
      case '{' -> {
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
          pos++;
          return map;
        }
        while (true) {
          skipSpace();
          String key = string();
          skipSpace();
          pos++; // ':'
          skipSpace();
          int start = pos;
          map.put(key, value(depth + 1));
          if (depth == 0) {
            rawMembers.put(key, text.substring(start, pos));
          }
          skipSpace();
          if (text.charAt(pos++) == '}') {
            return map;
          }
        }
      }
      case '[' -> {
        pos++;
        List<Object> list = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
          pos++;
          return list;
        }
        while (true) {
          skipSpace();
          list.add(value(depth + 1));
          skipSpace();
          if (text.charAt(pos++) == ']') {
            return list;
          }
        }
      }
      case '"' -> {
        return string();
      }
      case 't' -> {
        pos += 4;
        return Boolean.TRUE;
      }
      case 'f' -> {
        pos += 5;
        return Boolean.FALSE;
      }
      case 'n' -> {
        pos += 4;
        return null;
      }
      default -> {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
          pos++;
        }
        return new JsonNumber(text.substring(start, pos));
      }
    }
  }

  private String string() {
    pos++; // opening quote
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = text.charAt(pos++);
      switch (e) {
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          sb.append((char) Integer.parseInt(text, pos, pos + 4, 16));
          pos += 4;
        }
        default -> sb.append(e); // " \ /
      }
    }
  }

  private char peek() {
    return text.charAt(pos);
  }

  private void skipSpace() {
    while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }
}
