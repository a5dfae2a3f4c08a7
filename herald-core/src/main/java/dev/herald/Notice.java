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

  /**
   * A copy of this notice to change field by field, for code that moves a notice on:
   * {@code notice.with().status(FAILED).attempts(3).build()}.
   */
  public Builder with() {
    return new Builder(this);
  }

  /** A notice being changed: every field starts as the notice's own. */
  public static final class Builder {
    private UUID id;
    private String definition;
    private String payload;
    private String description;
    private String idempotencyKey;
    private NoticeStatus status;
    private int attempts;
    private Instant fireAt;
    private Instant nextAttemptAt;
    private Instant lastAttemptAt;
    private String lastError;
    private Instant createdAt;
    private Instant updatedAt;
    private Instant finishedAt;
    private String target;
    private String traceparent;

    private Builder(Notice n) {
      this.id = n.id;
      this.definition = n.definition;
      this.payload = n.payload;
      this.description = n.description;
      this.idempotencyKey = n.idempotencyKey;
      this.status = n.status;
      this.attempts = n.attempts;
      this.fireAt = n.fireAt;
      this.nextAttemptAt = n.nextAttemptAt;
      this.lastAttemptAt = n.lastAttemptAt;
      this.lastError = n.lastError;
      this.createdAt = n.createdAt;
      this.updatedAt = n.updatedAt;
      this.finishedAt = n.finishedAt;
      this.target = n.target;
      this.traceparent = n.traceparent;
    }

    public Builder definition(String definition) {
      this.definition = definition;
      return this;
    }

    public Builder payload(String payload) {
      this.payload = payload;
      return this;
    }

    public Builder description(String description) {
      this.description = description;
      return this;
    }

    public Builder idempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    public Builder status(NoticeStatus status) {
      this.status = status;
      return this;
    }

    public Builder attempts(int attempts) {
      this.attempts = attempts;
      return this;
    }

    public Builder fireAt(Instant fireAt) {
      this.fireAt = fireAt;
      return this;
    }

    public Builder nextAttemptAt(Instant nextAttemptAt) {
      this.nextAttemptAt = nextAttemptAt;
      return this;
    }

    public Builder lastAttemptAt(Instant lastAttemptAt) {
      this.lastAttemptAt = lastAttemptAt;
      return this;
    }

    public Builder lastError(String lastError) {
      this.lastError = lastError;
      return this;
    }

    public Builder createdAt(Instant createdAt) {
      this.createdAt = createdAt;
      return this;
    }

    public Builder updatedAt(Instant updatedAt) {
      this.updatedAt = updatedAt;
      return this;
    }

    public Builder finishedAt(Instant finishedAt) {
      this.finishedAt = finishedAt;
      return this;
    }

    public Builder target(String target) {
      this.target = target;
      return this;
    }

    public Builder traceparent(String traceparent) {
      this.traceparent = traceparent;
      return this;
    }

    public Notice build() {
      return new Notice(id, definition, payload, description, idempotencyKey, status, attempts, fireAt, nextAttemptAt, lastAttemptAt, lastError, createdAt, updatedAt, finishedAt, target, traceparent);
    }
  }
}
