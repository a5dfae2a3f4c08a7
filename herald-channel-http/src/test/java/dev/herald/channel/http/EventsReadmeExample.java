package dev.herald.channel.http;

import dev.herald.Herald;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventRequest;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;

/** The events example of docs/java.md, compiled here and run by {@link EventEndpointsTest}. */
final class EventsReadmeExample {
  private EventsReadmeExample() {}

  static PublishedEvent publish(Herald herald, String acmeUrl, String acmeKey) {
    // tag::events[]
    herald.events().saveType(EventType.of("order.paid", "An order was paid", """
        {"type": "object", "required": ["order"],
         "properties": {"order": {"type": "object", "required": ["id", "total"],
           "properties": {"id": {"type": "integer"}, "total": {"type": "number", "minimum": 0}}}}}"""));
    herald.events().saveEndpoint(EventEndpoint.builder("acme-erp")
        .url(acmeUrl)                                  // or .channel("kafka", "acme-orders")
        .subscribe("order.paid")                       // "*" for every type
        .filter("{\"order.country\": {\"$in\": [\"DE\", \"AT\"]}}")
        .secretHeader("X-Api-Key", acmeKey)            // masked in the attempt log
        .maxRate("20/s")
        .retry("5s, 1m, 10m, 1h, 6h")
        .build());                                     // signs with a whsec_ secret of its own

    PublishedEvent paid = herald.inTransaction(tx -> {
      // ... the order's own writes with tx.connection() ...
      return tx.publish(EventRequest.of("order.paid", "{\"order\": {\"id\": 42, \"total\": 9.5, \"country\": \"DE\"}}")
          .idempotencyKey("order-42-paid"));
    });
    // paid.deliveries(): one notice per endpoint that took it in, each with its own retries and attempt log
    // end::events[]
    return paid;
  }
}
