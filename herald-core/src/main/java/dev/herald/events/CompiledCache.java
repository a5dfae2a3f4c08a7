package dev.herald.events;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Compiled forms (schemas, filters) of texts stored with a version, kept while the version and the
 * text are the ones compiled; bounded by clearing, as a publish recompiles what it misses anyway.
 */
final class CompiledCache<T> {
  private static final int LIMIT = 10_000;

  private record Compiled<T>(long version, String text, T value) {}

  private final Map<String, Compiled<T>> byKey = new ConcurrentHashMap<>();

  T get(String key, long version, String text, Function<String, T> compile) {
    Compiled<T> c = byKey.get(key);
    if (c == null || c.version() != version || !c.text().equals(text)) {
      c = new Compiled<>(version, text, compile.apply(text));
      if (byKey.size() > LIMIT) {
        byKey.clear();
      }
      byKey.put(key, c);
    }
    return c.value();
  }

  void forget(String key) {
    byKey.remove(key);
  }
}
