package dev.herald.events;

import java.time.Instant;
import java.util.UUID;

/**
 * A published event, as stored: the message every subscribed endpoint got a notice of.
 *
 * @param id time-ordered UUID
 * @param tenant whose event it is
 * @param type its event type's name
 * @param payload the JSON text published (JSON {@code null} once expunged)
 * @param idempotencyKey the publisher's key, unique per tenant; null if none
 * @param createdAt when it was published
 * @param endpoints how many endpoints it went to (one notice each)
 * @param expunged whether its payload was expunged
 */
public record Event(UUID id, String tenant, String type, String payload, String idempotencyKey, Instant createdAt,
    int endpoints, boolean expunged) {}
