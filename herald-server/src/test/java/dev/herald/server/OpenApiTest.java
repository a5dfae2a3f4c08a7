package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/** The served OpenAPI description and the controllers agree, route by route. */
class OpenApiTest extends ServerTest {

  private static JsonNode openApi() {
    TestServer.Resp r = anonymous.get("/api/v1/openapi.json");
    assertThat(r.status()).isEqualTo(200);
    return r.json();
  }

  /**
   * "METHOD /path" of every controller route under /api/, and whether it is admin only (needs what a
   * client token lacks); every route but the open ones declares what it needs.
   */
  private static Map<String, Boolean> routes() {
    RequestMappingHandlerMapping mapping =
        server.context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    Map<String, Boolean> out = new java.util.TreeMap<>();
    for (Map.Entry<RequestMappingInfo, HandlerMethod> e : mapping.getHandlerMethods().entrySet()) {
      for (String path : e.getKey().getPatternValues()) {
        if (!path.startsWith("/api/")) {
          continue;
        }
        Set<RequestMethod> methods = e.getKey().getMethodsCondition().getMethods();
        assertThat(methods).as("%s declares its methods", path).isNotEmpty();
        for (RequestMethod m : methods) {
          Permission needed = PermissionInterceptor.required(e.getValue());
          assertThat(needed != null || ApiFilter.isOpen(path)).as("%s %s declares what it needs", m, path).isTrue();
          out.put(m.name() + " " + path, needed != null && !Role.CLIENT.grants().contains(needed));
        }
      }
    }
    return out;
  }

  @Test
  void everyRouteIsDescribedAndEveryDescribedRouteExists() {
    JsonNode doc = openApi();
    assertThat(doc.get("openapi").asString()).isEqualTo("3.1.0");
    Map<String, Boolean> routes = routes();
    assertThat(routes).hasSizeGreaterThan(15);
    Set<String> described = new TreeSet<>();
    for (Map.Entry<String, JsonNode> p : doc.get("paths").properties()) {
      for (String name : p.getValue().propertyNames()) {
        if (!name.equals("parameters")) {
          described.add(name.toUpperCase(Locale.ROOT) + " " + p.getKey());
        }
      }
    }
    assertThat(described).containsExactlyInAnyOrderElementsOf(routes.keySet());

    routes.forEach((route, adminOnly) -> {
      String[] mp = route.split(" ");
      JsonNode op = doc.get("paths").get(mp[1]).get(mp[0].toLowerCase(Locale.ROOT));
      boolean open = op.has("security") && op.get("security").isEmpty();
      assertThat(open).as(route + " is open in the description only where the filter leaves it open")
          .isEqualTo(ApiFilter.isOpen(mp[1]));
      if (!open) {
        assertThat(op.get("responses").has("401")).as(route + " documents 401").isTrue();
      }
      assertThat(op.get("responses").has("403")).as(route + " documents 403 exactly when it is admin only")
          .isEqualTo(adminOnly);
    });
  }

  @Test
  void everyReferenceResolves() {
    JsonNode doc = openApi();
    List<String> refs = new ArrayList<>();
    collectRefs(doc, refs);
    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/");
      assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
    }
    assertThat(anonymous.get("/api/v1/openapi.yaml").text()).startsWith("openapi: \"3.1.0\"");
  }

  private static void collectRefs(JsonNode n, List<String> out) {
    if (n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        if (e.getKey().equals("$ref")) {
          out.add(e.getValue().asString());
        } else {
          collectRefs(e.getValue(), out);
        }
      }
    } else if (n.isArray()) {
      n.forEach(c -> collectRefs(c, out));
    }
  }
}
