package dev.herald;

import java.time.Duration;

/**
 * How one engine behaves. Frozen; {@link dev.herald.Herald.Builder} fills in the defaults.
 *
 * @param nodeId this node's name; a node restarted with the same id takes back at once what it held before
 * @param pollInterval how often to look for due notices that this node was not told about
 * @param lookAhead claim notices due this far ahead and fire them from memory on time
 * @param nodeTimeout a node whose heartbeat is older than this is dead: other nodes take over its
 *     notices, and it starts no attempt itself once this much time has passed since its last beat
 *     (less a quarter, for clock skew); it beats every quarter of it
 * @param claimBatch most notices per claim query
 * @param maxHeld most notices held in memory (timer plus in flight plus awaiting write): flow control
 * @param maxConcurrentDeliveries most attempts running at once on this node
 * @param maxConcurrentPerReceiver most attempts running at once to one receiver (an http(s) origin,
 *     a handler, a broker's target); more wait in that receiver's line without holding the others
 * @param deliveryTimeout an attempt still running after this counts as failed
 * @param writeBatch most outcomes recorded per transaction (group commit)
 * @param shutdownTimeout how long close() waits for running attempts
 * @param historyRetention finished notices older than this are purged
 * @param housekeepingInterval how often history is purged and definitions reloaded
 * @param maxPayloadBytes largest payload accepted, in UTF-8 bytes
 * @param circuitFailureThreshold consecutive failed attempts that open a receiver's circuit (sync-first delivery)
 * @param circuitOpenFor how long an open circuit defers inline delivery before probing again
 * @param definitions node affinity: only these definitions are delivered here; empty for all
 * @param shards node affinity: only notices in these shards are delivered here; empty for all
 * @param maxBacklog flow control: while more than this many notices are due and undelivered,
 *     enqueue is refused with {@link dev.herald.BackPressureException}; 0 for no limit
 */
public record EngineSettings(
    String nodeId,
    Duration pollInterval,
    Duration lookAhead,
    Duration nodeTimeout,
    int claimBatch,
    int maxHeld,
    int maxConcurrentDeliveries,
    int maxConcurrentPerReceiver,
    Duration deliveryTimeout,
    int writeBatch,
    Duration shutdownTimeout,
    Duration historyRetention,
    Duration housekeepingInterval,
    int maxPayloadBytes,
    int circuitFailureThreshold,
    Duration circuitOpenFor,
    java.util.Set<String> definitions,
    java.util.Set<Integer> shards,
    int maxBacklog) {

  public EngineSettings {
    if (nodeId == null || nodeId.isBlank() || nodeId.length() > 200) {
      throw new InvalidInputException("nodeId", "must be 1 to 200 characters");
    }
    positive("pollInterval", pollInterval);
    positive("lookAhead", lookAhead);
    positive("nodeTimeout", nodeTimeout);
    if (nodeTimeout.toMillis() < 200) {
      throw new InvalidInputException("nodeTimeout", "must be at least 200 ms, was " + nodeTimeout.toMillis() + " ms");
    }
    positive("deliveryTimeout", deliveryTimeout);
    positive("shutdownTimeout", shutdownTimeout);
    positive("historyRetention", historyRetention);
    positive("housekeepingInterval", housekeepingInterval);
    atLeastOne("claimBatch", claimBatch);
    atLeastOne("maxHeld", maxHeld);
    atLeastOne("maxConcurrentDeliveries", maxConcurrentDeliveries);
    atLeastOne("maxConcurrentPerReceiver", maxConcurrentPerReceiver);
    atLeastOne("writeBatch", writeBatch);
    atLeastOne("maxPayloadBytes", maxPayloadBytes);
    atLeastOne("circuitFailureThreshold", circuitFailureThreshold);
    positive("circuitOpenFor", circuitOpenFor);
    definitions = java.util.Set.copyOf(definitions);
    shards = java.util.Set.copyOf(shards);
    for (int s : shards) {
      if (s < 0 || s >= dev.herald.spi.Shards.COUNT) {
        throw new InvalidInputException("shards", "shard " + s + " is outside 0.." + (dev.herald.spi.Shards.COUNT - 1));
      }
    }
    if (maxBacklog < 0) {
      throw new InvalidInputException("maxBacklog", "must be >= 0 (0 for no limit), was " + maxBacklog);
    }
  }

  /** How often this node writes its heartbeat: a quarter of {@link #nodeTimeout}. */
  public Duration heartbeatInterval() {
    return nodeTimeout.dividedBy(4);
  }

  /** Whether this node delivers notices of {@code definition} in {@code shard}. */
  public boolean handles(String definition, int shard) {
    return (definitions.isEmpty() || definitions.contains(definition)) && (shards.isEmpty() || shards.contains(shard));
  }

  /** The longest setting accepted: ten years (the engine adds settings to instants stored as epoch millis). */
  private static final Duration LONGEST = Duration.ofDays(3650);

  private static void positive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInputException(field, "must be a positive duration, was " + d);
    }
    if (d.compareTo(LONGEST) > 0) {
      throw new InvalidInputException(field, "must be at most " + LONGEST.toDays() + " days, was " + d);
    }
  }

  private static void atLeastOne(String field, int n) {
    if (n < 1) {
      throw new InvalidInputException(field, "must be >= 1, was " + n);
    }
  }
}
