package dev.herald.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI 3.1 description of this API, written by hand in {@code openapi.yaml} (the API reads its
 * bodies itself, so generated descriptions would say nothing useful) and kept complete by a test that
 * checks every route appears in it. Open, like the health check: it holds no data.
 */
@RestController
class OpenApiController {
  static final String RESOURCE = "openapi.yaml";

  private final String yaml;
  private final JsonNode json;

  OpenApiController() {
    try (InputStream in = OpenApiController.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE, e);
    }
    Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    json = JsonInput.MAPPER.valueToTree(tree);
  }

  @GetMapping(value = "/api/v1/openapi.json", produces = MediaType.APPLICATION_JSON_VALUE)
  JsonNode json() {
    return json;
  }

  @GetMapping(value = "/api/v1/openapi.yaml", produces = "application/yaml")
  ResponseEntity<String> yaml() {
    return ResponseEntity.ok().contentType(MediaType.parseMediaType("application/yaml;charset=UTF-8")).body(yaml);
  }
}
