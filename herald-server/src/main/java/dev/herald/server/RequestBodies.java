package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Request bodies, read as a stream within this server's limits ({@link JsonBody}). */
final class RequestBodies {
  private final JsonBody.Limits limits;
  private final JsonBody.InFlight inFlight;
  private final ServerProperties properties;

  RequestBodies(ServerProperties properties, int maxPayloadBytes) {
    this.properties = properties;
    this.limits = new JsonBody.Limits(properties.getMaxRequestSize().toBytes(), properties.getMaxBatch(),
        maxTokens(properties.getMaxBatch()), maxPayloadBytes, properties.getBodyTimeout().toMillis());
    this.inFlight = new JsonBody.InFlight(properties.getMaxRequestBytesInFlight().toBytes());
  }

  /** Tree values a request may hold outside payloads: a full batch of items of 50 fields and values each. */
  static int maxTokens(int maxBatch) {
    return (int) Math.min(Integer.MAX_VALUE, 50L * maxBatch + 10_000);
  }

  JsonBody.InFlight inFlight() {
    return inFlight;
  }

  /** The body, which must be a JSON object. */
  ObjectNode object(HttpServletRequest request) {
    JsonInput.requireJson(request);
    JsonNode n;
    try {
      n = JsonBody.read(request.getInputStream(), request.getContentLengthLong(), limits, inFlight,
          properties.getRetryAfter());
    } catch (IOException e) {
      throw ApiException.of(400, "bad_request", "could not read the request body: " + e.getMessage());
    }
    return JsonInput.object(n, "");
  }

  /** The body, which must be a JSON object of the {@code allowed} fields only. */
  ObjectNode object(HttpServletRequest request, Set<String> allowed) {
    ObjectNode in = object(request);
    JsonInput.only(in, "", allowed);
    return in;
  }
}
