package dev.herald.deploy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.Map;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a manifest into the Kubernetes API's own types (fabric8's model of the API), refusing what the
 * API would not know: an unknown or misspelt field anywhere (the model's catch-all for unknown fields is
 * switched off), or a value of the wrong type (a string for a port number or a replica count, a map for
 * a list). It does not
 * check required fields, value ranges or formats: the tests assert those they rely on.
 */
final class KubernetesTypes {
  private static final Map<String, Class<?>> KINDS = Map.of(
      "apps/v1 Deployment", Deployment.class,
      "v1 Service", Service.class,
      "v1 ConfigMap", ConfigMap.class,
      "v1 Secret", Secret.class,
      "policy/v1 PodDisruptionBudget", PodDisruptionBudget.class);

  private static final JsonMapper STRICT = JsonMapper.builder()
      .annotationIntrospector(new JacksonAnnotationIntrospector() {
        @Override
        public Boolean hasAnySetter(MapperConfig<?> config, Annotated a) {
          return Boolean.FALSE;
        }

        @Override
        public JsonIgnoreProperties.Value findPropertyIgnoralByName(MapperConfig<?> config, Annotated a) {
          return JsonIgnoreProperties.Value.empty();
        }
      })
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS) // "2" is no replica count to the API server
      .build();

  private KubernetesTypes() {}

  static boolean known(Map<String, Object> manifest) {
    return KINDS.containsKey(manifest.get("apiVersion") + " " + manifest.get("kind"));
  }

  /** The manifest as its Kubernetes type; fails naming the first field the API does not have. */
  static <T> T read(Map<String, Object> manifest, Class<T> type) {
    Class<?> expected = KINDS.get(manifest.get("apiVersion") + " " + manifest.get("kind"));
    if (expected != type) {
      throw new AssertionError("apiVersion/kind " + manifest.get("apiVersion") + " " + manifest.get("kind")
          + " is not a " + type.getSimpleName());
    }
    return STRICT.convertValue(manifest, type);
  }

  static Object read(Map<String, Object> manifest) {
    Class<?> type = KINDS.get(manifest.get("apiVersion") + " " + manifest.get("kind"));
    if (type == null) {
      throw new AssertionError("unknown apiVersion/kind " + manifest.get("apiVersion") + " " + manifest.get("kind"));
    }
    return STRICT.convertValue(manifest, type);
  }
}
