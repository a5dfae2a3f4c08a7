package dev.herald;

import java.time.Instant;
import java.util.UUID;

/**
 * One thing to deliver, as stored.
 *
 * @param id time-ordered UUID, assigned at enqueue
 * @param definition the name of its definition
 * @param payload the JSON text, exactly as given
 * @param description context for people; handlers may rewrite it
 * @param idempotencyKey the caller's key, unique per definition; null if none
 * @param status where it is in its life
 * @param attempts attempts made so far
 * @param fireAt the time the caller asked for
 * @param nextAttemptAt when it is due next (for AWAITING_CONFIRM: when the confirm times out); null once finished
 * @param lastAttemptAt when the last attempt started; null before the first
 * @param lastError the last failed attempt's error; null after a success
 * @param createdAt when it was enqueued
 * @param updatedAt when it last changed
 * @param finishedAt when it reached SUCCEEDED, DEAD or CANCELLED; null while live
 * @param target where this notice goes (e.g. a callback URL), overriding its definition's target; null
 *     to use the definition's
 * @param traceparent the W3C trace context of the transaction that created it, kept for every
 *     attempt so that a trace follows it to its receiver; null if none was known
 */
public record Notice(
    UUID id,
    String definition,
    String payload,
    String description,
    String idempotencyKey,
    NoticeStatus status,
    int attempts,
    Instant fireAt,
    Instant nextAttemptAt,
    Instant lastAttemptAt,
    String lastError,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    String target,
    String traceparent) {

  /** A notice without a trace context. */
  public Notice(UUID id, String definition, String payload, String description, String idempotencyKey,
      NoticeStatus status, int attempts, Instant fireAt, Instant nextAttemptAt, Instant lastAttemptAt,
      String lastError, Instant createdAt, Instant updatedAt, Instant finishedAt, String target) {
    this(id, definition, payload, description, idempotencyKey, status, attempts, fireAt, nextAttemptAt,
        lastAttemptAt, lastError, createdAt, updatedAt, finishedAt, target, null);
  }
}
