package dev.herald.server;

import dev.herald.events.EventDelivery;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

/** The API's JSON for event types, event endpoints and events. */
final class EventViews {
  private EventViews() {}

  static ObjectNode type(EventType t) {
    ObjectNode o = Views.object();
    o.put("name", t.name());
    o.put("description", t.description());
    if (t.schema() == null) {
      o.putNull("schema");
    } else {
      o.putRawValue("schema", new RawValue(t.schema()));
    }
    Views.time(o, "createdAt", t.createdAt());
    Views.time(o, "updatedAt", t.updatedAt());
    return o;
  }

  static ObjectNode endpoint(EventEndpoint e) {
    ObjectNode o = Views.object();
    o.put("id", e.id());
    o.put("description", e.description());
    o.put("enabled", e.enabled());
    String channel = e.delivery().channel();
    if (channel.equals("http")) {
      o.put("url", e.delivery().target());
    } else {
      o.put("channel", channel);
      o.put("target", e.delivery().target());
    }
    ArrayNode types = o.putArray("eventTypes");
    e.eventTypes().forEach(types::add);
    if (e.filter() == null) {
      o.putNull("filter");
    } else {
      o.putRawValue("filter", new RawValue(e.filter()));
    }
    ObjectNode headers = o.putObject("headers");
    ObjectNode secretHeaders = o.putObject("secretHeaders");
    ObjectNode options = o.putObject("options");
    for (Map.Entry<String, String> opt : e.delivery().options().entrySet()) {
      String k = opt.getKey();
      if (k.startsWith(EventEndpoint.HEADER_OPTION)) {
        headers.put(k.substring(EventEndpoint.HEADER_OPTION.length()), opt.getValue());
      } else if (k.startsWith(EventEndpoint.SECRET_HEADER_OPTION)) {
        secretHeaders.put(k.substring(EventEndpoint.SECRET_HEADER_OPTION.length()), Views.MASK);
      } else if (!EventEndpointsController.MAPPED_OPTIONS.contains(k)) {
        options.put(k, EventEndpointsController.isSecretOption(k) ? Views.MASK : opt.getValue());
      }
    }
    o.put("maxRate", e.delivery().option("max-rate", null));
    String concurrency = e.delivery().option("max-concurrency", null);
    o.put("maxConcurrency", concurrency == null ? null : Integer.valueOf(concurrency));
    o.put("retry", e.delivery().retrySchedule().text());
    o.put("maxAttempts", e.delivery().maxAttempts());
    o.put("ordering", e.delivery().ordering().text());
    o.put("secrets", e.secrets().size());
    o.put("definition", e.delivery().name());
    Views.time(o, "createdAt", e.createdAt());
    Views.time(o, "updatedAt", e.updatedAt());
    return o;
  }

  static ObjectNode event(PublishedEvent p) {
    ObjectNode o = Views.object();
    o.put("id", p.event().id().toString());
    o.put("type", p.event().type());
    o.putRawValue("payload", new RawValue(p.event().payload()));
    o.put("idempotencyKey", p.event().idempotencyKey());
    Views.time(o, "createdAt", p.event().createdAt());
    o.put("expunged", p.event().expunged());
    o.put("endpoints", p.event().endpoints());
    o.put("taken", p.taken());
    ArrayNode deliveries = o.putArray("deliveries");
    for (EventDelivery d : p.deliveries()) {
      ObjectNode x = deliveries.addObject();
      x.put("endpoint", d.endpointId());
      x.put("noticeId", d.noticeId().toString());
      x.put("status", d.status() == null ? null : d.status().name());
      x.put("taken", d.taken());
      x.put("attempts", d.attempts());
      x.put("lastError", Views.serverWording(d.lastError()));
      Views.time(x, "lastAttemptAt", d.lastAttemptAt());
    }
    return o;
  }
}
