package dev.herald.store.jdbc;

import java.util.Map;
import java.util.TreeMap;

/**
 * Definition options as stored: one {@code key=value} line each, sorted. Keys cannot hold '=' or a
 * line break and values cannot hold a line break (the definition checks both), so no escaping is needed.
 */
final class DefinitionOptions {
  private DefinitionOptions() {}

  static String write(Map<String, String> options) {
    if (options.isEmpty()) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    new TreeMap<>(options).forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
    return out.toString();
  }

  static Map<String, String> read(String text) {
    Map<String, String> options = new TreeMap<>();
    if (text != null) {
      for (String line : text.split("\n")) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          options.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    return options;
  }
}
