package dev.herald.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The properties the server knows, from the configuration metadata in its packaged jar (its own and every
 * library's), and whether an environment variable sets one, by Spring Boot's rule: dots become
 * underscores, dashes go (or become underscores too), upper case; map properties take any key after
 * their name.
 */
final class ServerProperties {
  private final Set<String> names = new HashSet<>();
  private final Set<String> maps = new HashSet<>();

  static ServerProperties of(Path serverJar) {
    ServerProperties p = new ServerProperties();
    try (JarFile jar = new JarFile(serverJar.toFile())) {
      for (JarEntry e : jar.stream().toList()) {
        if (e.getName().endsWith("META-INF/spring-configuration-metadata.json")) {
          try (InputStream in = jar.getInputStream(e)) {
            p.add(in.readAllBytes());
          }
        } else if (e.getName().matches("BOOT-INF/lib/(spring-boot|herald)-.*\\.jar")) { // the ones with metadata
          try (JarInputStream nested = new JarInputStream(jar.getInputStream(e))) {
            for (JarEntry n = nested.getNextJarEntry(); n != null; n = nested.getNextJarEntry()) {
              if (n.getName().equals("META-INF/spring-configuration-metadata.json")) {
                p.add(nested.readAllBytes());
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (p.names.isEmpty()) {
      throw new IllegalStateException("no configuration metadata in " + serverJar);
    }
    return p;
  }

  private void add(byte[] metadata) {
    JsonNode root = JsonMapper.shared().readTree(metadata);
    for (JsonNode property : root.path("properties")) {
      String name = property.get("name").asString();
      names.add(name);
      if (property.path("type").asString("").startsWith("java.util.Map")) {
        maps.add(name);
      }
    }
  }

  /** Whether the variable sets a known property. */
  boolean knows(String variable) {
    for (String name : names) {
      String canonical = name.replace(".", "_").replace("-", "").toUpperCase();
      String legacy = name.replace(".", "_").replace("-", "_").toUpperCase();
      if (variable.equals(canonical) || variable.equals(legacy)
          || maps.contains(name) && (variable.startsWith(canonical + "_") || variable.startsWith(legacy + "_"))) {
        return true;
      }
    }
    return false;
  }
}
