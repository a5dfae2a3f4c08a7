package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.Set;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** API tokens: admin only. A new token's secret is in the creation response and nowhere else. */
@RestController
@RequestMapping("/api/v1/tokens")
@AdminOnly
class TokensController {
  private final ApiTokens tokens;
  private final ServerProperties properties;

  TokensController(ApiTokens tokens, ServerProperties properties) {
    this.tokens = tokens;
    this.properties = properties;
  }

  @PostMapping
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    ObjectNode in = JsonInput.object(JsonInput.body(request, properties.getMaxRequestSize().toBytes()), "");
    JsonInput.only(in, "", Set.of("name", "role"));
    String name = JsonInput.requiredText(in, "", "name");
    String roleText = JsonInput.requiredText(in, "", "role");
    Role role = Role.parse(roleText);
    if (role == null) {
      throw ApiException.invalid("role", "must be admin or client, was '" + roleText + "'");
    }
    ApiTokens.Info caller = (ApiTokens.Info) request.getAttribute(ApiFilter.CALLER);
    ApiTokens.Created created = tokens.create(name, role, caller == null ? null : "token " + caller.name());
    ObjectNode out = view(created.info());
    out.put("token", created.token());
    return ResponseEntity.created(URI.create("/api/v1/tokens/" + created.info().id())).body(out);
  }

  @GetMapping
  ObjectNode list() {
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    tokens.list().forEach(t -> items.add(view(t)));
    return out;
  }

  @DeleteMapping("/{id}")
  ObjectNode revoke(@PathVariable("id") String id) {
    return view(tokens.revoke(id));
  }

  static ObjectNode view(ApiTokens.Info t) {
    ObjectNode o = Views.object();
    o.put("id", t.id());
    o.put("name", t.name());
    o.put("role", t.role().text());
    o.put("hint", t.hint());
    Views.time(o, "createdAt", t.createdAt());
    o.put("createdBy", t.createdBy());
    Views.time(o, "lastUsedAt", t.lastUsedAt());
    Views.time(o, "revokedAt", t.revokedAt());
    o.put("active", t.active());
    return o;
  }
}
