package dev.herald.engine;

import dev.herald.FieldPath;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.Traceparent;
import dev.herald.internal.JsonText;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.Shards;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** Checks a request field by field and turns it into a new row; refuses before anything is written. */
final class Intake {
  static final int MAX_KEY = 200;

  private final Clock clock;
  private final DefinitionCache definitions;
  private final int maxPayloadBytes;
  private final Supplier<String> traceContext;

  Intake(Clock clock, DefinitionCache definitions, int maxPayloadBytes) {
    this(clock, definitions, maxPayloadBytes, () -> null);
  }

  /** @param traceContext the caller's current traceparent, kept by requests that bring none; null if none */
  Intake(Clock clock, DefinitionCache definitions, int maxPayloadBytes, Supplier<String> traceContext) {
    this.clock = clock;
    this.definitions = definitions;
    this.maxPayloadBytes = maxPayloadBytes;
    this.traceContext = traceContext;
  }

  /**
   * Validates and builds the row, unowned and PENDING.
   *
   * @param at the path of the request in the caller's input, e.g. {@code notices[3]}; {@link FieldPath#ROOT} for one
   */
  NoticeRow newRow(NoticeRequest r, FieldPath at) {
    if (r == null) {
      throw new InvalidInputException(at.isRoot() ? FieldPath.of("request") : at, "must not be null");
    }
    if (r.definition() == null || r.definition().isBlank()) {
      throw new InvalidInputException(at.then("definition"), "must not be blank");
    }
    NoticeDefinition def = definitions.require(r.definition(), at.then("definition").toString());
    if (r.target() != null) {
      if (r.target().isBlank() || r.target().length() > 2000) {
        throw new InvalidInputException(at.then("target"), "must be 1 to 2000 characters");
      }
      definitions.validateTarget(def.channel(), r.target(), at.then("target").toString());
    } else if (def.perNoticeTarget()) {
      throw new InvalidInputException(at.then("target"), "is required: definition '" + def.name()
          + "' has no target of its own, each of its notices gives one");
    }
    checkPayload(r.payload(), r.checkedPayload() != null, at.then("payload").toString());
    if (r.description() != null && r.description().length() > Transitions.MAX_DESCRIPTION) {
      throw new InvalidInputException(at.then("description"),
          "must be at most " + Transitions.MAX_DESCRIPTION + " characters, was " + r.description().length());
    }
    if (r.idempotencyKey() != null && (r.idempotencyKey().isBlank() || r.idempotencyKey().length() > MAX_KEY)) {
      throw new InvalidInputException(at.then("idempotencyKey"), "must be 1 to " + MAX_KEY + " characters");
    }
    if (r.shardKey() != null && (r.shardKey().isBlank() || r.shardKey().length() > MAX_KEY)) {
      throw new InvalidInputException(at.then("shardKey"), "must be 1 to " + MAX_KEY + " characters");
    }
    if (r.orderingKey() != null) {
      if (r.orderingKey().isBlank() || r.orderingKey().length() > MAX_KEY) {
        throw new InvalidInputException(at.then("orderingKey"), "must be 1 to " + MAX_KEY + " characters");
      }
      if (!def.ordering().ordered()) {
        throw new InvalidInputException(at.then("orderingKey"), "definition " + def.name()
            + " is not ordered; give it an ordering (wait or skip) to deliver notices in order per key");
      }
    }
    if (r.traceparent() != null && !Traceparent.isValid(r.traceparent())) {
      throw new InvalidInputException(at.then("traceparent"),
          "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower case, ids not all"
              + " zeros");
    }
    if (r.delay() != null && r.delay().isNegative()) {
      throw new InvalidInputException(at.then("delay"), "must not be negative, was " + r.delay());
    }
    // Times are stored in whole milliseconds; round the fire time up so that a notice never fires early.
    Instant now = Instant.ofEpochMilli(clock.millis());
    Instant fireAt;
    if (r.fireAt() != null) {
      fireAt = storable(r.fireAt(), at.then("fireAt").toString());
    } else if (r.delay() != null) {
      if (r.delay().compareTo(Duration.between(now, LATEST)) > 0) {
        throw new InvalidInputException(at.then("delay"), "must end by " + LATEST + ", was " + r.delay());
      }
      fireAt = ceilMillis(now.plus(r.delay()));
    } else {
      fireAt = now;
    }
    Notice n = new Notice(Ids.next(clock), r.definition(), r.payload(), r.description(), r.idempotencyKey(),
        NoticeStatus.PENDING, 0, fireAt, fireAt, null, null, now, now, null, r.target(),
        r.traceparent() != null ? r.traceparent() : currentTraceparent());
    return new NoticeRow(n, null, Instant.EPOCH, 1, 0, Shards.of(r.shardKey(), n.id()));
  }

  /** The ambient trace context, if the source gives a valid one; a failing source never stops an enqueue. */
  private String currentTraceparent() {
    try {
      return Traceparent.orNull(traceContext.get());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Checks an edit's fields as enqueue checks them; returns it. */
  dev.herald.NoticeEdit checkEdit(String definition, dev.herald.NoticeEdit e) {
    if (e.payload() != null) {
      checkPayload(e.payload(), false, "payload");
    }
    if (e.target() != null) {
      if (e.target().isBlank() || e.target().length() > 2000) {
        throw new InvalidInputException("target", "must be 1 to 2000 characters");
      }
      definitions.validateTarget(definitions.require(definition, "definition").channel(), e.target(), "target");
    }
    if (e.payload() == null && e.fireAt() == null && e.target() == null) {
      throw new InvalidInputException("edit", "changes nothing: give a payload, fireAt or target");
    }
    return e.fireAt() == null ? e : new dev.herald.NoticeEdit(e.payload(), storable(e.fireAt(), "fireAt"), e.target());
  }

  /** The earliest and latest fire times stored: epoch milliseconds, and the last instant of a four-digit year. */
  static final Instant EARLIEST = Instant.EPOCH;
  static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

  /** A fire time rounded up to whole milliseconds, or an error naming {@code field} if it is outside the stored range. */
  static Instant storable(Instant t, String field) {
    if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
      throw new InvalidInputException(field, "must be between " + EARLIEST + " and " + LATEST + ", was " + t);
    }
    return ceilMillis(t);
  }

  static Instant ceilMillis(Instant t) {
    Instant floor = Instant.ofEpochMilli(t.toEpochMilli());
    return floor.equals(t) ? t : floor.plusMillis(1);
  }

  /**
   * Refuses a missing or too large payload, and one that is not JSON unless it is {@code known} to be
   * (a {@link dev.herald.JsonPayload}, which can only be made valid): an adapter that parsed it already
   * does not pay for a second scan.
   */
  private void checkPayload(String payload, boolean known, String field) {
    if (payload == null) {
      throw new InvalidInputException(field, "must not be null");
    }
    // Every char is at most 3 UTF-8 bytes; count exactly only when it could matter.
    if ((long) payload.length() * 3 > maxPayloadBytes) {
      int bytes = payload.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxPayloadBytes) {
        throw new InvalidInputException(field, "is " + bytes + " bytes; the limit is " + maxPayloadBytes);
      }
    }
    if (!known) {
      JsonText.requireValid(payload, field);
    }
  }

  /** The same row, leased by {@code owner} until {@code leaseUntil}: the engine will fire it from memory. */
  static NoticeRow preclaimed(NoticeRow row, String owner, Instant leaseUntil) {
    Notice n = row.notice();
    Notice leased = n.with().status(NoticeStatus.IN_FLIGHT).attempts(0).lastAttemptAt(null).lastError(null)
        .finishedAt(null).build();
    return new NoticeRow(leased, owner, leaseUntil, row.version(), 0, row.shard());
  }
}
