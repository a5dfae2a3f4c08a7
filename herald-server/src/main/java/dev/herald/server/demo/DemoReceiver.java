package dev.herald.server.demo;

import dev.herald.server.PlannedFailures;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Demo mode's receiver, served by the server itself, answering by a rule the console's data shows:
 * <ul>
 *   <li>{@code orders}: order numbers ending in 0 get 500 for their first 3 requests (so they go DEAD
 *       after the definition's 3 attempts, and a resend succeeds), ending in 3 or 7 get 503 once (a
 *       retry), ending in 5 are answered after 1.2 s, the rest at once with {@code ok};
 *   <li>{@code payouts}: after 0.1 to 2.6 s (the definition's timeout is 2 s: some time out and retry);
 *   <li>{@code reports}: 202 at once (the definition wants a confirmation).
 * </ul>
 */
@RestController
@ConditionalOnProperty(name = "herald.server.demo", havingValue = "true")
class DemoReceiver {
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

  @PostMapping("/demo/receiver/{kind}")
  ResponseEntity<String> receive(@PathVariable String kind, @RequestBody(required = false) String body,
      @RequestHeader(name = "webhook-id", required = false) String id, HttpServletRequest request)
      throws InterruptedException {
    PlannedFailures.mark(request); // its 5xx answers are the demo's, not the server failing
    if (requests.size() > 100_000) {
      requests.clear(); // a demo's memory, not a record
    }
    int seen = id == null ? 1 : requests.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    JsonNode payload = body == null || body.isBlank() ? JsonMapper.shared().nullNode() : JsonMapper.shared().readTree(body);
    return switch (kind) {
      case "orders" -> order(payload.path("order").asInt(), seen);
      case "payouts" -> {
        Thread.sleep(ThreadLocalRandom.current().nextInt(100, 2600));
        yield ResponseEntity.ok("ok");
      }
      case "reports" -> ResponseEntity.accepted().body("accepted");
      default -> ResponseEntity.notFound().build();
    };
  }

  private static ResponseEntity<String> order(int order, int seen) throws InterruptedException {
    switch (order % 10) {
      case 0 -> {
        if (seen <= 3) {
          return ResponseEntity.status(500).body("payment service unavailable");
        }
      }
      case 3, 7 -> {
        if (seen == 1) {
          return ResponseEntity.status(503).body("busy, try again");
        }
      }
      case 5 -> Thread.sleep(1200);
      default -> { }
    }
    return ResponseEntity.ok("ok");
  }
}
