package dev.herald.events;

import java.time.Instant;

/**
 * An event to publish: one notice for each endpoint subscribed to its type (and whose filter its
 * payload passes). Build with {@link #of(String, String)}.
 *
 * @param tenant whose event it is; null for {@link Tenancy#DEFAULT}
 * @param type the event type's name
 * @param payload JSON text, checked against the type's schema if it has one
 * @param idempotencyKey optional, unique per tenant: publishing the same key again returns the first
 *     event and writes nothing
 * @param orderingKey optional: endpoints whose delivery is ordered get the events of one key one at a
 *     time, in publish order (each endpoint its own line); other endpoints ignore it
 * @param fireAt when to deliver; null for now
 * @param traceparent optional W3C traceparent of the work that published it
 */
public record EventRequest(String tenant, String type, String payload, String idempotencyKey, String orderingKey,
    Instant fireAt, String traceparent) {

  /** An event of the default tenant, delivered now. */
  public static EventRequest of(String type, String payload) {
    return new EventRequest(null, type, payload, null, null, null, null);
  }

  public EventRequest tenant(String id) {
    return new EventRequest(id, type, payload, idempotencyKey, orderingKey, fireAt, traceparent);
  }

  public EventRequest idempotencyKey(String key) {
    return new EventRequest(tenant, type, payload, key, orderingKey, fireAt, traceparent);
  }

  public EventRequest orderingKey(String key) {
    return new EventRequest(tenant, type, payload, idempotencyKey, key, fireAt, traceparent);
  }

  public EventRequest fireAt(Instant time) {
    return new EventRequest(tenant, type, payload, idempotencyKey, orderingKey, time, traceparent);
  }

  public EventRequest traceparent(String context) {
    return new EventRequest(tenant, type, payload, idempotencyKey, orderingKey, fireAt, context);
  }
}
