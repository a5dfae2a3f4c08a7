package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every error the API answers is an RFC 9457 problem, {@code application/problem+json}:
 *
 * <pre>{@code
 * {"type": "about:blank", "title": "Bad Request", "status": 400,
 *  "detail": "notices[3].fireAt: must be an ISO-8601 instant ...", "instance": "/api/v1/notices",
 *  "error": "invalid_input", "field": "notices[3].fireAt", "reason": "must be an ISO-8601 instant ..."}
 * }</pre>
 *
 * {@code error} is a stable code; {@code field} and {@code reason} come with input errors, and
 * {@code errors} lists every refused field when there are several.
 */
final class Problems {
  static final String MEDIA_TYPE = "application/problem+json";
  /** Request attribute holding the problem's detail, for the request log line. */
  static final String DETAIL_ATTRIBUTE = "herald.server.problem";

  private Problems() {}

  static ObjectNode body(ApiException e, String instance) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("type", "about:blank");
    HttpStatus s = HttpStatus.resolve(e.status());
    o.put("title", s != null ? s.getReasonPhrase() : "Error");
    o.put("status", e.status());
    o.put("detail", e.getMessage());
    if (instance != null) {
      o.put("instance", instance);
    }
    o.put("error", e.error());
    if (e.field() != null) {
      o.put("field", e.field());
      o.put("reason", e.reason());
    }
    if (!e.errors().isEmpty()) {
      ArrayNode all = o.putArray("errors");
      for (ApiException.FieldError f : e.errors()) {
        all.addObject().put("field", f.field()).put("reason", f.reason());
      }
    }
    return o;
  }

  /** Writes a problem directly (from a filter, before Spring MVC). */
  static void write(HttpServletRequest request, HttpServletResponse response, ApiException e, JsonMapper mapper)
      throws IOException {
    request.setAttribute(DETAIL_ATTRIBUTE, e.getMessage());
    response.setStatus(e.status());
    response.setContentType(MEDIA_TYPE);
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    if (e.retryAfter() != null) {
      response.setHeader("Retry-After", Long.toString(Math.max(1, e.retryAfter().toSeconds())));
    }
    response.getOutputStream().write(mapper.writeValueAsBytes(body(e, request.getRequestURI())));
  }
}
