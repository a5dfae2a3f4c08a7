package dev.herald.server;

import dev.herald.Herald;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * With no {@code spring.datasource.url}, points the data source at the embedded H2 database in
 * {@code herald.server.data-dir} (default {@code ./data}), with the URL settings Herald's core uses
 * for its own H2 files (every commit written at once). One process at a time opens that file, so the
 * node id defaults to {@code embedded}: a restart takes back what it held at once.
 */
final class EmbeddedDatabaseDefaults implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {
  static final String SOURCE = "heraldServerEmbeddedDatabase";
  /** Set by this class: the H2 database file (without extension) when the embedded database is used. */
  static final String EMBEDDED_FILE = "herald.server.internal.embedded-file";
  /** The node timeout on the embedded file (see {@link #apply}); a setting of one's own wins. */
  static final String EMBEDDED_NODE_TIMEOUT = "10s";

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    apply(event.getEnvironment());
  }

  static void apply(ConfigurableEnvironment env) {
    String url = env.getProperty("spring.datasource.url");
    if (url != null && !url.isBlank()) {
      return;
    }
    Path dir = Path.of(env.getProperty("herald.server.data-dir", "data")).toAbsolutePath().normalize();
    Path file = dir.resolve("herald-server");
    Map<String, Object> defaults = new LinkedHashMap<>();
    // QUERY_CACHE_SIZE=0: H2 2.x reuses a cached plan's LIMIT parameter inside UNION branches of a
    // derived table (the core's notice search), so later searches on the same pooled connection
    // returned wrong pages. Parsing each statement anew avoids it.
    defaults.put("spring.datasource.url", Herald.Builder.h2Url(file) + ";QUERY_CACHE_SIZE=0");
    defaults.put("spring.datasource.username", "sa");
    defaults.put("spring.datasource.password", "");
    defaults.put("herald.node-id", "embedded");
    // The core's 2 s node timeout fences a node whose heartbeat commit takes over 1.5 s, so that another
    // node may take over: a fresh server under load on H2 (one writer for everything) crossed it and
    // released thousands of held notices to be claimed again, seconds late. No other node can open this
    // file, so only a stalled process should cross it.
    defaults.put("herald.node-timeout", EMBEDDED_NODE_TIMEOUT);
    defaults.put(EMBEDDED_FILE, file.toString());
    env.getPropertySources().addLast(new MapPropertySource(SOURCE, defaults));
  }
}
