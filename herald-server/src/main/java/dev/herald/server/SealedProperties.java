package dev.herald.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Secrets in the configuration sealed at rest: a property whose value is {@code enc:v1:...} (made by
 * {@code java -jar herald-server.jar secret seal}) is opened with {@code herald.server.secret-key}
 * before anything reads it, so that SMTP passwords ({@code herald.server.alerts.smtp-password}, {@code
 * herald.mail.password}), database passwords and the like need not sit in plain text in a file.
 */
final class SealedProperties implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {
  static final String SOURCE = "heraldServerOpenedSecrets";

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    apply(event.getEnvironment());
  }

  static void apply(ConfigurableEnvironment env) {
    Map<String, Object> opened = new LinkedHashMap<>();
    SecretBox box = null;
    for (PropertySource<?> source : env.getPropertySources()) {
      if (!(source instanceof EnumerablePropertySource<?> e)) {
        continue;
      }
      for (String name : e.getPropertyNames()) {
        Object value = e.getProperty(name);
        if (value instanceof CharSequence text && SecretBox.isSealed(text.toString()) && !opened.containsKey(name)
            && SecretBox.isSealed(env.getProperty(name))) {
          if (box == null) {
            box = box(env);
          }
          try {
            opened.put(name, box.open(text.toString()));
          } catch (IllegalStateException ex) {
            throw new IllegalStateException("property " + name + ": " + ex.getMessage(), ex);
          }
        }
      }
    }
    if (!opened.isEmpty()) {
      env.getPropertySources().addFirst(new MapPropertySource(SOURCE, opened));
    }
  }

  private static SecretBox box(ConfigurableEnvironment env) {
    String key = env.getProperty("herald.server.secret-key");
    List<String> previous = new ArrayList<>();
    String list = env.getProperty("herald.server.previous-secret-keys");
    if (list != null && !list.isBlank()) {
      previous.addAll(Arrays.stream(list.split(",")).map(String::strip).toList());
    }
    for (int i = 0; env.containsProperty("herald.server.previous-secret-keys[" + i + "]"); i++) {
      previous.add(env.getProperty("herald.server.previous-secret-keys[" + i + "]"));
    }
    return new SecretBox(key, previous);
  }
}
