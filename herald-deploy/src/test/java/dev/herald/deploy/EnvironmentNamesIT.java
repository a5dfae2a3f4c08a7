package dev.herald.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every environment variable that the table of docs/server.md, compose.yaml and the Helm chart give the server sets
 * a property the packaged server knows (its configuration metadata): a misspelt name would be ignored
 * silently by Spring. Runs after herald-server is packaged (verify), as it reads the jar.
 */
class EnvironmentNamesIT {
  static final Path REPOSITORY = ComposeFileTest.REPOSITORY;
  /** Read by the JVM or the container runtime, not by Spring. */
  static final Set<String> NOT_PROPERTIES = Set.of("JAVA_TOOL_OPTIONS", "HOSTNAME");

  final ServerProperties server = ServerProperties.of(REPOSITORY.resolve("herald-server/target/herald-server.jar"));

  @Test
  void theReadmeTableNamesOnlyKnownSettings() throws Exception {
    String readme = Files.readString(REPOSITORY.resolve("docs/server.md"));
    int section = readme.indexOf("### Configuration by environment");
    assertThat(section).as("docs/server.md section 'Configuration by environment'").isPositive();
    List<String> names = new ArrayList<>();
    Matcher row = Pattern.compile("(?m)^\\| `([A-Z0-9_]+)(?:_<[A-Z]+>)?`").matcher(readme.substring(section));
    while (row.find()) {
      names.add(row.group(1));
    }
    assertThat(names).hasSizeGreaterThan(15).contains("SPRING_DATASOURCE_URL", "HERALD_NODE_ID");
    assertKnown("README", names);
  }

  @Test
  void composeAndTheChartSetOnlyKnownSettings() {
    Map<String, Object> services = ComposeFileTest.map(HelmChart.yaml(REPOSITORY.resolve("compose.yaml")), "services");
    for (String node : List.of("herald-1", "herald-2")) {
      assertKnown("compose.yaml " + node, ComposeFileTest.map(services, node, "environment").keySet());
    }

    Map<String, String> rendered = HelmChart.load(REPOSITORY.resolve("charts/herald")).render("herald", "default",
        Map.of("database", Map.of("url", "jdbc:postgresql://db/herald"), "config", Map.of()));
    HelmChartTest.Manifests m = HelmChartTest.Manifests.of(rendered);
    assertKnown("chart ConfigMap", m.one("configmap.yaml", ConfigMap.class).getData().keySet());
    assertKnown("chart Deployment", m.one("deployment.yaml", Deployment.class).getSpec().getTemplate().getSpec()
        .getContainers().getFirst().getEnv().stream().map(EnvVar::getName).toList());
  }

  @Test
  void theCheckRefusesAMisspeltName() {
    assertThat(server.knows("HERALD_HTTP_ALLOW_PRIVATE_NETWORKS")).isTrue();
    assertThat(server.knows("HERALD_AMQP_BROKERS_MAIN")).as("a map property's key").isTrue();
    assertThat(server.knows("HERALD_HTTP_ALLOW_PRIVATE_NETWORK")).isFalse();
    assertThat(server.knows("SPRING_DATASOURCE_URI")).isFalse();
  }

  private void assertKnown(String where, Iterable<String> names) {
    for (String name : names) {
      if (!NOT_PROPERTIES.contains(name)) {
        assertThat(server.knows(name)).as(where + ": " + name + " sets no property the server knows").isTrue();
      }
    }
  }
}
