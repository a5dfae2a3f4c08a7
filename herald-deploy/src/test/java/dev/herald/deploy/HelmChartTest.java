package dev.herald.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart in charts/herald, rendered by {@link HelmChart} (no helm binary here) with its default
 * values and with the options turned the other way. Each manifest must be one YAML document that reads
 * into its Kubernetes type with no unknown field ({@link KubernetesTypes}); the test then asserts what a
 * deployment relies on. Not checked here: that a cluster accepts it (admission, CRDs, quotas), Helm's own
 * lint rules, and Go template behaviour outside the part the renderer knows (it refuses the rest).
 */
class HelmChartTest {
  static final Path CHART = Path.of(System.getProperty("herald.repository", "..")).resolve("charts/herald");
  static final String DB = "jdbc:postgresql://postgres.data:5432/herald";
  static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  final HelmChart chart = HelmChart.load(CHART);

  @Test
  void theChartDescribesItselfAsHelm3Wants() {
    assertThat(chart.chart()).containsEntry("apiVersion", "v2").containsEntry("name", "herald")
        .containsEntry("type", "application").containsKeys("version", "appVersion", "description");
    assertThat((String) chart.chart().get("version")).matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?");
  }

  @Test
  void defaultsRenderReplicasSharingTheDatabaseWithProbesAndAGracePeriodAboveTheShutdown() {
    Manifests m = render(Map.of("database", Map.of("url", DB)));
    assertThat(m.files()).containsOnlyKeys("configmap.yaml", "deployment.yaml", "pdb.yaml", "secret.yaml",
        "service.yaml");

    Deployment deployment = m.one("deployment.yaml", Deployment.class);
    assertThat(deployment.getMetadata().getName()).isEqualTo("pay-herald").matches(DNS_LABEL);
    assertThat(deployment.getMetadata().getNamespace()).isEqualTo("payments");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    Map<String, String> selector = deployment.getSpec().getSelector().getMatchLabels();
    assertThat(selector).containsOnly(Map.entry("app.kubernetes.io/name", "herald"),
        Map.entry("app.kubernetes.io/instance", "pay"));
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(selector);
    assertThat(deployment.getMetadata().getLabels()).containsEntry("app.kubernetes.io/version", "0.1.0-SNAPSHOT")
        .containsEntry("helm.sh/chart", "herald-0.1.0").containsEntry("app.kubernetes.io/managed-by", "Helm");

    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    Container herald = pod.getContainers().getFirst();
    assertThat(pod.getContainers()).hasSize(1);
    assertThat(herald.getImage()).isEqualTo("registry.example.com/herald-server:0.1.0-SNAPSHOT");
    assertThat(herald.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(herald.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(herald.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(herald.getVolumeMounts()).singleElement().satisfies(v -> assertThat(v.getMountPath()).isEqualTo("/tmp"));
    assertThat(pod.getVolumes()).singleElement().satisfies(v -> assertThat(v.getEmptyDir()).isNotNull());
    assertThat(herald.getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getName()).isEqualTo("http");
      assertThat(p.getContainerPort()).isEqualTo(8080);
    });
    assertThat(herald.getResources().getLimits()).containsKey("memory");
    assertThat(herald.getResources().getRequests()).containsKeys("cpu", "memory");

    // probes on Actuator's groups, through the named port
    assertProbe(herald.getLivenessProbe(), "/actuator/health/liveness");
    assertProbe(herald.getReadinessProbe(), "/actuator/health/readiness");
    assertProbe(herald.getStartupProbe(), "/actuator/health/liveness");

    // node ids: each pod's name
    EnvVar nodeId = env(herald, "HERALD_NODE_ID");
    assertThat(nodeId.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
    // secrets by reference, from the chart's Secret (no key when no value was given)
    for (String name : List.of("SPRING_DATASOURCE_PASSWORD", "HERALD_SERVER_BOOTSTRAP_ADMIN_TOKEN",
        "HERALD_SERVER_CONSOLE_ADMIN_PASSWORD", "HERALD_SERVER_SECRET_KEY")) {
      assertThat(env(herald, name).getValueFrom().getSecretKeyRef().getName()).isEqualTo("pay-herald");
      assertThat(env(herald, name).getValueFrom().getSecretKeyRef().getOptional()).isTrue();
    }
    Secret secret = m.one("secret.yaml", Secret.class);
    assertThat(secret.getMetadata().getName()).isEqualTo("pay-herald");
    assertThat(secret.getData()).isNullOrEmpty();
    ConfigMap config = m.one("configmap.yaml", ConfigMap.class);
    assertThat(herald.getEnvFrom()).singleElement()
        .satisfies(e -> assertThat(e.getConfigMapRef().getName()).isEqualTo(config.getMetadata().getName()));
    assertThat(config.getData()).containsEntry("SPRING_DATASOURCE_URL", DB)
        .containsEntry("SPRING_DATASOURCE_USERNAME", "herald")
        .containsEntry("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs")
        .containsEntry("HERALD_SHUTDOWN_TIMEOUT", "20s")
        .containsEntry("SPRING_LIFECYCLE_TIMEOUT_PER_SHUTDOWN_PHASE", "20s");

    // SIGTERM after the preStop pause; then the web server drains and Herald stops, each within the
    // shutdown timeout: the grace period must cover all three
    assertThat(herald.getLifecycle().getPreStop().getSleep().getSeconds()).isEqualTo(5L);
    Duration shutdown = Duration.parse("PT" + config.getData().get("HERALD_SHUTDOWN_TIMEOUT"));
    assertThat(Duration.ofSeconds(pod.getTerminationGracePeriodSeconds()))
        .isGreaterThan(shutdown.multipliedBy(2).plusSeconds(5));

    // a changed configuration rolls the pods
    String checksum = deployment.getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/config");
    assertThat(checksum).matches("[0-9a-f]{64}");
    Deployment changed = render(Map.of("database", Map.of("url", DB + "2"))).one("deployment.yaml", Deployment.class);
    assertThat(changed.getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/config")).isNotEqualTo(checksum);

    Service service = m.one("service.yaml", Service.class);
    assertThat(service.getSpec().getSelector()).isEqualTo(selector);
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getPort()).isEqualTo(8080);
      assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
    });
    PodDisruptionBudget pdb = m.one("pdb.yaml", PodDisruptionBudget.class);
    assertThat(pdb.getSpec().getSelector().getMatchLabels()).isEqualTo(selector);
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
  }

  @Test
  void optionsTurnedTheOtherWay() {
    Manifests m = render(Map.of(
        "database", Map.of("url", DB),
        "fullnameOverride", "notify",
        "image", Map.of("tag", "1.2.3"),
        "secrets", Map.of("existingSecret", "herald-credentials"),
        "config", Map.of("HERALD_HTTP_ALLOW", "10.20.0.0/16", "HERALD_LOOK_AHEAD", "10s"),
        "logFormat", "",
        "preStopSleepSeconds", 0,
        "podDisruptionBudget", Map.of("enabled", false),
        "serviceMonitor", Map.of("enabled", true, "labels", Map.of("release", "prometheus")),
        "imagePullSecrets", List.of(Map.of("name", "registry"))));
    assertThat(m.files()).containsOnlyKeys("configmap.yaml", "deployment.yaml", "service.yaml", "servicemonitor.yaml");

    Deployment deployment = m.one("deployment.yaml", Deployment.class);
    assertThat(deployment.getMetadata().getName()).isEqualTo("notify");
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container herald = pod.getContainers().getFirst();
    assertThat(herald.getImage()).endsWith(":1.2.3");
    assertThat(herald.getLifecycle()).isNull();
    assertThat(pod.getImagePullSecrets()).singleElement().satisfies(s -> assertThat(s.getName()).isEqualTo("registry"));
    assertThat(env(herald, "SPRING_DATASOURCE_PASSWORD").getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("herald-credentials");
    assertThat(m.one("configmap.yaml", ConfigMap.class).getData())
        .containsEntry("HERALD_HTTP_ALLOW", "10.20.0.0/16").containsEntry("HERALD_LOOK_AHEAD", "10s")
        .doesNotContainKey("LOGGING_STRUCTURED_FORMAT_CONSOLE");

    // ServiceMonitor is a CRD (Prometheus Operator): no type here, so its fields are checked by hand
    Map<String, Object> monitor = m.single("servicemonitor.yaml");
    assertThat(monitor).containsEntry("apiVersion", "monitoring.coreos.com/v1").containsEntry("kind", "ServiceMonitor")
        .containsOnlyKeys("apiVersion", "kind", "metadata", "spec");
    assertThat(map(monitor, "metadata", "labels")).containsEntry("release", "prometheus");
    Map<String, Object> spec = map(monitor, "spec");
    assertThat(spec).containsOnlyKeys("selector", "endpoints");
    assertThat(map(spec, "selector", "matchLabels")).isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(spec.get("endpoints")).isEqualTo(List.of(
        Map.of("port", "http", "path", "/actuator/prometheus", "interval", "30s")));
  }

  @Test
  void withSecretValuesTheChartsSecretHoldsThemEncoded() {
    Manifests m = render(Map.of("database", Map.of("url", DB), "secrets", Map.of(
        "databasePassword", "s3cret \"pw\"", "bootstrapAdminToken", "hrd_0123456789abcdef0123456789abcdef01",
        "secretKey", "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8M=")));
    Secret secret = m.one("secret.yaml", Secret.class);
    assertThat(secret.getData()).containsOnlyKeys("database-password", "bootstrap-admin-token", "secret-key");
    assertThat(new String(Base64.getDecoder().decode(secret.getData().get("database-password")), StandardCharsets.UTF_8))
        .isEqualTo("s3cret \"pw\"");
  }

  @Test
  void aMissingDatabaseUrlIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> render(Map.of())).hasMessageContaining("database.url is required");
  }

  private void assertProbe(Probe probe, String path) {
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("http");
  }

  private static EnvVar env(Container c, String name) {
    return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no env " + name + " in " + c.getEnv()));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> m, String... path) {
    Map<String, Object> v = m;
    for (String p : path) {
      v = (Map<String, Object>) v.get(p);
    }
    return v;
  }

  private Manifests render(Map<String, Object> values) {
    return Manifests.of(chart.render("pay", "payments", values));
  }

  /** The rendered files that are not blank (a disabled resource renders to nothing), each checked. */
  record Manifests(Map<String, String> files) {
    static Manifests of(Map<String, String> rendered) {
      Map<String, String> files = new java.util.TreeMap<>();
      rendered.forEach((file, text) -> {
        if (!text.isBlank() && file.endsWith(".yaml")) {
          files.put(file, text);
        }
      });
      Manifests m = new Manifests(files);
      files.keySet().forEach(file -> {
        Map<String, Object> manifest = m.single(file);
        if (KubernetesTypes.known(manifest)) {
          KubernetesTypes.read(manifest);
        }
      });
      assertThat(rendered.get("NOTES.txt")).contains("port-forward");
      return m;
    }

    /** The file's one YAML document. */
    Map<String, Object> single(String file) {
      List<Object> documents = new java.util.ArrayList<>();
      new Yaml().loadAll(files.get(file)).forEach(documents::add);
      assertThat(documents).as(file + ":\n" + files.get(file)).hasSize(1);
      assertThat(documents.getFirst()).as(file).isInstanceOf(Map.class);
      @SuppressWarnings("unchecked")
      Map<String, Object> manifest = (Map<String, Object>) documents.getFirst();
      return manifest;
    }

    <T> T one(String file, Class<T> type) {
      assertThat(files).as("rendered files").containsKey(file);
      return KubernetesTypes.read(single(file), type);
    }
  }
}
