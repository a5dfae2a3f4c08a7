package dev.herald.channel.mail;

import dev.herald.InvalidInputException;
import dev.herald.json.JsonTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A text with {@code {{path}}} placeholders, filled from a JSON payload: {@code {{order.id}}} is
 * the payload's {@code order.id}, {@code {{items.0.sku}}} an array element. A placeholder with no
 * value in the payload is an error, never an empty string: a mail saying "your order  was paid" is
 * worse than none.
 */
final class Template {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z0-9_$-]+(?:\\.[A-Za-z0-9_$-]+)*)\\s*}}");

  private final String text;
  private final List<String> paths;

  private Template(String text, List<String> paths) {
    this.text = text;
    this.paths = paths;
  }

  /** @throws InvalidInputException naming {@code field} if a {@code {{...}}} is not a dotted path */
  static Template parse(String text, String field) {
    List<String> paths = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      paths.add(m.group(1));
    }
    String rest = PLACEHOLDER.matcher(text).replaceAll("");
    int bad = rest.indexOf("{{");
    if (bad >= 0) {
      throw new InvalidInputException(field, "has a placeholder that is not a dotted path such as {{order.id}}: '"
          + rest.substring(bad, Math.min(rest.length(), bad + 40)) + "'");
    }
    return new Template(text, List.copyOf(paths));
  }

  /**
   * The text with every placeholder replaced by its value in {@code payload} (a parsed JSON tree);
   * strings as they are, numbers as written, objects and arrays refused.
   *
   * @param html escape values for HTML
   * @throws MissingValue if the payload has no usable value for a placeholder
   */
  String render(Object payload, boolean html) {
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String path = m.group(1);
      Object v = JsonTree.at(payload, path);
      if (v == null || v instanceof Map<?, ?> || v instanceof List<?>) {
        throw new MissingValue(path, v == null ? "has no value" : "is an object or array, not a value");
      }
      String s = v.toString();
      m.appendReplacement(out, Matcher.quoteReplacement(html ? escapeHtml(s) : s));
    }
    m.appendTail(out);
    return out.toString();
  }

  List<String> paths() {
    return paths;
  }

  private static String escapeHtml(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '&' -> sb.append("&amp;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  /** A placeholder the payload cannot fill. */
  static final class MissingValue extends RuntimeException {
    MissingValue(String path, String why) {
      super("payload value '" + path + "' " + why, null, false, false);
    }
  }
}
