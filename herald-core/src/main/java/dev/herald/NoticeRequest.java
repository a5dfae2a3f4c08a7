package dev.herald;

import java.time.Duration;
import java.time.Instant;

/**
 * What a caller asks Herald to deliver. Build with {@link #of(String, String)}.
 *
 * @param definition the definition's name
 * @param payload JSON text, stored exactly as given
 * @param description optional context for people
 * @param idempotencyKey optional; enqueueing the same key for the same definition again returns the
 *     first notice and creates nothing
 * @param fireAt when to deliver; null means now (or {@code delay} from now)
 * @param delay how long after enqueue to deliver, when {@code fireAt} is null; null means at once
 * @param shardKey optional; notices with the same key land in the same shard (see node affinity)
 * @param target optional; where this notice goes (e.g. a callback URL), instead of the definition's target;
 *     required when the definition has none; fail-over targets in {@link Targets}' form ({@link #targets})
 * @param orderingKey optional, for definitions with {@link Ordering}: notices with the same key are
 *     delivered one at a time, in the order they were enqueued
 * @param traceparent optional W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}) of
 *     the work that asked for the notice; when null, Herald takes the current one if it was given a
 *     source ({@link Herald.Builder#traceContext})
 * @param checkedPayload the payload as a value known to be valid JSON, when the request was made from one
 *     ({@link #of(String, JsonPayload)}); {@code payload} is then its text and intake does not scan it again.
 *     Null for a {@code String} payload, which intake checks.
 */
public record NoticeRequest(
    String definition, String payload, String description, String idempotencyKey, Instant fireAt, Duration delay,
    String shardKey,
    String target,
    String orderingKey,
    String traceparent,
    JsonPayload checkedPayload) {

  /** @throws IllegalArgumentException if {@code checkedPayload} is given and {@code payload} is not its text */
  public NoticeRequest {
    if (checkedPayload != null && payload != checkedPayload.text() && !checkedPayload.text().equals(payload)) {
      throw new IllegalArgumentException("payload must be the text of checkedPayload");
    }
  }

  /** A request whose payload is a {@code String}, checked at intake. */
  public NoticeRequest(String definition, String payload, String description, String idempotencyKey,
      Instant fireAt, Duration delay, String shardKey, String target, String orderingKey, String traceparent) {
    this(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, target, orderingKey, traceparent,
        null);
  }

  /** A request without a trace context of its own. */
  public NoticeRequest(String definition, String payload, String description, String idempotencyKey,
      Instant fireAt, Duration delay, String shardKey, String target, String orderingKey) {
    this(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, target, orderingKey, null);
  }

  /** A request without an ordering key. */
  public NoticeRequest(String definition, String payload, String description, String idempotencyKey,
      Instant fireAt, Duration delay, String shardKey, String target) {
    this(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, target, null, null);
  }

  /** A notice of {@code definition} carrying {@code payload}, due now. */
  public static NoticeRequest of(String definition, String payload) {
    return new NoticeRequest(definition, payload, null, null, null, null, null, null, null, null);
  }

  /** A notice of {@code definition} carrying {@code payload}, due now; intake does not scan the payload again. */
  public static NoticeRequest of(String definition, JsonPayload payload) {
    return new NoticeRequest(definition, payload.text(), null, null, null, null, null, null, null, null, payload);
  }

  public NoticeRequest description(String text) {
    return new NoticeRequest(definition, payload, text, idempotencyKey, fireAt, delay, shardKey, target,
        orderingKey, traceparent, checkedPayload);
  }

  public NoticeRequest idempotencyKey(String key) {
    return new NoticeRequest(definition, payload, description, key, fireAt, delay, shardKey, target,
        orderingKey, traceparent, checkedPayload);
  }

  public NoticeRequest fireAt(Instant time) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, time, null, shardKey, target,
        orderingKey, traceparent, checkedPayload);
  }

  public NoticeRequest delay(Duration after) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, null, after, shardKey, target,
        orderingKey, traceparent, checkedPayload);
  }

  /** Puts the notice in the shard of {@code key}, so that the nodes owning that shard deliver it. */
  public NoticeRequest shardKey(String key) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, fireAt, delay, key, target,
        orderingKey, traceparent, checkedPayload);
  }

  /** Sends this notice to {@code where} (e.g. a callback URL) instead of its definition's target. */
  public NoticeRequest target(String where) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, where,
        orderingKey, traceparent, checkedPayload);
  }

  /**
   * Sends this notice to {@code where}, in order: the first target, then the next ones when it keeps
   * failing (for channels with fail-over, such as HTTP). Stored as {@link Targets#text()}.
   *
   * @throws InvalidInputException naming {@code target}: none, more than {@value Targets#MAX}, or one blank
   */
  public NoticeRequest targets(java.util.List<String> where) {
    return target(Targets.of(where).text());
  }

  /**
   * Delivers this notice after every earlier notice with the same key, one at a time, across nodes.
   * Its definition must be ordered ({@link NoticeDefinition.Builder#ordered}).
   */
  public NoticeRequest orderingKey(String key) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, target,
        key, traceparent, checkedPayload);
  }

  /**
   * Keeps the W3C {@code traceparent} of the work that asked for this notice: every attempt is
   * traced as its child and sends it on to the receiver.
   */
  public NoticeRequest traceparent(String context) {
    return new NoticeRequest(definition, payload, description, idempotencyKey, fireAt, delay, shardKey, target,
        orderingKey, context, checkedPayload);
  }
}
