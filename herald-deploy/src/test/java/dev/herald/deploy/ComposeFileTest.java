package dev.herald.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * compose.yaml, read as Compose reads it (YAML with anchors and merge keys). Neither Docker Compose nor
 * an image registry for the postgres image is reachable here, so the file is not run: this test checks
 * what the README promises of it. Its environment variable names are checked against the server's
 * properties by {@link EnvironmentNamesIT}.
 */
class ComposeFileTest {
  static final Path REPOSITORY = Path.of(System.getProperty("herald.repository", "..")).toAbsolutePath().normalize();

  final Map<String, Object> compose = HelmChart.yaml(REPOSITORY.resolve("compose.yaml"));

  @Test
  void twoHeraldNodesAndPostgresqlStartedInHealthOrder() {
    Map<String, Object> services = map(compose, "services");
    assertThat(services).containsOnlyKeys("postgres", "herald-1", "herald-2");
    Map<String, Object> postgres = map(services, "postgres");
    assertThat(map(postgres, "healthcheck").get("test")).asString().contains("pg_isready");
    assertThat(postgres.get("volumes")).isEqualTo(List.of("postgres-data:/var/lib/postgresql/data"));
    assertThat(map(compose, "volumes")).containsKey("postgres-data");

    Map<String, Object> first = map(services, "herald-1");
    Map<String, Object> second = map(services, "herald-2");
    assertThat(map(first, "build")).containsEntry("context", ".").containsEntry("dockerfile", "Containerfile");
    assertThat(REPOSITORY.resolve("Containerfile")).exists();
    assertThat(second.get("image")).isEqualTo(first.get("image"));
    assertThat(second).containsEntry("pull_policy", "never").doesNotContainKey("build");
    for (Map<String, Object> herald : List.of(first, second)) {
      assertThat(map(herald, "depends_on", "postgres")).containsEntry("condition", "service_healthy");
      assertThat(herald).containsEntry("read_only", true).containsEntry("tmpfs", List.of("/tmp"));
      // above Spring's drain (30 s) plus Herald's shutdown (30 s), the defaults
      assertThat(Duration.parse("PT" + herald.get("stop_grace_period"))).isGreaterThan(Duration.ofSeconds(60));
      Map<String, Object> env = map(herald, "environment");
      assertThat(env).containsEntry("SPRING_DATASOURCE_URL", "jdbc:postgresql://postgres:5432/herald");
      for (String secret : List.of("SPRING_DATASOURCE_PASSWORD", "HERALD_SERVER_BOOTSTRAP_ADMIN_TOKEN")) {
        assertThat((String) env.get(secret)).as(secret + " comes from the environment, required")
            .startsWith("${").contains(":?");
      }
    }
    assertThat(first.get("hostname")).isNotEqualTo(second.get("hostname"));
    assertThat(first.get("ports")).isEqualTo(List.of("127.0.0.1:8080:8080"));
    assertThat(second.get("ports")).isEqualTo(List.of("127.0.0.1:8081:8080"));
  }

  @Test
  void theReadmeRunsTheClusterInThreeCommands() throws Exception {
    String readme = Files.readString(REPOSITORY.resolve("docs/server.md"));
    assertThat(readme).contains("""
        ./mvnw -q -pl herald-server -am package -DskipTests
        export POSTGRES_PASSWORD=$(openssl rand -hex 16) HERALD_ADMIN_TOKEN=hrd_$(openssl rand -hex 24)
        docker compose up --build --wait
        """);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> m, String... path) {
    Object v = m;
    for (String p : path) {
      assertThat(v).as(String.join(".", path)).isInstanceOf(Map.class);
      v = ((Map<String, Object>) v).get(p);
    }
    assertThat(v).as(String.join(".", path)).isInstanceOf(Map.class);
    return (Map<String, Object>) v;
  }
}
