package dev.herald.server;

import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Without a {@code herald.node-id}, on a server database, names the node {@code $HOSTNAME-<pid>}:
 * container runtimes set {@code HOSTNAME} to the container's (Compose, Podman) or pod's (Kubernetes)
 * name, so every replica gets its own id with no setting. The core's default looks the host name up
 * and falls back to {@code localhost} when that fails, which would give every container the same id.
 * The embedded H2 database keeps its fixed id ({@link EmbeddedDatabaseDefaults}); an explicit id wins.
 */
final class NodeIdDefault implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {
  static final String SOURCE = "heraldServerNodeId";

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    apply(event.getEnvironment(), System.getenv("HOSTNAME"), ProcessHandle.current().pid());
  }

  static void apply(ConfigurableEnvironment env, String hostname, long pid) {
    String url = env.getProperty("spring.datasource.url");
    if (url == null || url.isBlank() || env.containsProperty("herald.node-id")
        || hostname == null || hostname.isBlank()) {
      return;
    }
    env.getPropertySources().addLast(new MapPropertySource(SOURCE,
        Map.of("herald.node-id", hostname.strip() + "-" + pid)));
  }
}
