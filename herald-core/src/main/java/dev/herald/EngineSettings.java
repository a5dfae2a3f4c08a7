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
 * @param circuitSlowCalls when slow attempts open a receiver's circuit ({@link SlowCalls#DEFAULT})
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
    int maxBacklog,
    SlowCalls circuitSlowCalls) {

  /** @throws InvalidSettingException naming the first setting refused ({@link EngineSetting} checks each) */
  public EngineSettings {
    EngineSetting.NODE_ID.check(nodeId);
    EngineSetting.POLL_INTERVAL.check(pollInterval);
    EngineSetting.LOOK_AHEAD.check(lookAhead);
    EngineSetting.NODE_TIMEOUT.check(nodeTimeout);
    EngineSetting.DELIVERY_TIMEOUT.check(deliveryTimeout);
    EngineSetting.SHUTDOWN_TIMEOUT.check(shutdownTimeout);
    EngineSetting.HISTORY_RETENTION.check(historyRetention);
    EngineSetting.HOUSEKEEPING_INTERVAL.check(housekeepingInterval);
    EngineSetting.CLAIM_BATCH.check(claimBatch);
    EngineSetting.MAX_HELD.check(maxHeld);
    EngineSetting.MAX_CONCURRENT_DELIVERIES.check(maxConcurrentDeliveries);
    EngineSetting.MAX_CONCURRENT_PER_RECEIVER.check(maxConcurrentPerReceiver);
    EngineSetting.WRITE_BATCH.check(writeBatch);
    EngineSetting.MAX_PAYLOAD_BYTES.check(maxPayloadBytes);
    EngineSetting.CIRCUIT_FAILURE_THRESHOLD.check(circuitFailureThreshold);
    EngineSetting.CIRCUIT_OPEN_FOR.check(circuitOpenFor);
    EngineSetting.ONLY_DEFINITIONS.check(definitions);
    EngineSetting.ONLY_SHARDS.check(shards);
    definitions = java.util.Set.copyOf(definitions);
    shards = java.util.Set.copyOf(shards);
    EngineSetting.MAX_BACKLOG.check(maxBacklog);
    circuitSlowCalls = circuitSlowCalls == null ? SlowCalls.DEFAULT : circuitSlowCalls;
  }

  /** How often this node writes its heartbeat: a quarter of {@link #nodeTimeout}. */
  public Duration heartbeatInterval() {
    return nodeTimeout.dividedBy(4);
  }

  /** Whether this node delivers notices of {@code definition} in {@code shard}. */
  public boolean handles(String definition, int shard) {
    return (definitions.isEmpty() || definitions.contains(definition)) && (shards.isEmpty() || shards.contains(shard));
  }
}
