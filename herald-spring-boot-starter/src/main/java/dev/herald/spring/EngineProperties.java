package dev.herald.spring;

import java.time.Duration;
import java.util.Set;

/**
 * The engine settings under {@code herald.*}, one property per {@link dev.herald.EngineSetting} (a
 * test keeps this class, the configuration metadata and the README's table in step with it). A
 * property left unset keeps the core's default, named in its description.
 */
public abstract class EngineProperties {

  /**
   * This node's name; unique per running instance. A node restarted with the same id takes back what
   * it held at once. Default: host name and process id ("embedded" on Herald's own H2 files).
   */
  private String nodeId;

  /** How often to look for due notices this node was not told about. Default: 1s. */
  private Duration pollInterval;

  /** Claim notices due this far ahead and fire them from memory on time. Default: 5s. */
  private Duration lookAhead;

  /**
   * A node silent this long is dead: other nodes take over its notices. It beats every quarter of
   * this. Default: 2s.
   */
  private Duration nodeTimeout;

  /** Most notices per claim query. Default: 500. */
  private Integer claimBatch;

  /** Most notices held in memory at once (flow control). Default: 10000. */
  private Integer maxHeld;

  /** Most delivery attempts running at once on this node. Default: 1024. */
  private Integer maxConcurrentDeliveries;

  /** Most delivery attempts running at once to one receiver whose channel sets no limit of its own (a handler). Default: 64. */
  private Integer maxConcurrentPerReceiver;

  /** An attempt still running after this counts as failed. Default: 5m. */
  private Duration deliveryTimeout;

  /** Most outcomes recorded per database transaction (group commit). Default: 1000. */
  private Integer writeBatch;

  /**
   * How long stopping waits for running attempts. Keep it within Spring's
   * spring.lifecycle.timeout-per-shutdown-phase. Default: 30s.
   */
  private Duration shutdownTimeout;

  /** Finished notices older than this are purged from history. Default: 30d. */
  private Duration historyRetention;

  /** How often history is purged and definitions are reloaded. Default: 10m. */
  private Duration housekeepingInterval;

  /** Largest payload accepted, in UTF-8 bytes. Default: 1048576 (1 MiB). */
  private Integer maxPayloadBytes;

  /**
   * Sync-first delivery: consecutive failed attempts after which a receiver's circuit opens and
   * publishAndDeliver defers at once. Default: 5.
   */
  private Integer circuitFailureThreshold;

  /** Sync-first delivery: how long an open circuit defers before probing again. Default: 30s. */
  private Duration circuitOpenFor;

  /**
   * Sync-first delivery: an attempt this long or longer is slow; when half of a receiver's latest 20
   * attempts (at least 10) are slow (circuit-slow-call-rate), its circuit opens. 0 turns it off. Default: 10s.
   */
  private Duration circuitSlowCallDuration;

  /** Sync-first delivery: the share of slow attempts (above 0, at most 1) that opens a circuit. Default: 0.5. */
  private Double circuitSlowCallRate;

  public Duration getCircuitSlowCallDuration() {
    return circuitSlowCallDuration;
  }

  public void setCircuitSlowCallDuration(Duration circuitSlowCallDuration) {
    this.circuitSlowCallDuration = circuitSlowCallDuration;
  }

  public Double getCircuitSlowCallRate() {
    return circuitSlowCallRate;
  }

  public void setCircuitSlowCallRate(Double circuitSlowCallRate) {
    this.circuitSlowCallRate = circuitSlowCallRate;
  }

  /** Node affinity: this node delivers only these definitions (others are left to other nodes). Default: all. */
  private Set<String> onlyDefinitions;

  /** Node affinity: this node delivers only notices in these shards. Default: all. */
  private Set<Integer> onlyShards;

  /**
   * Flow control: publishing is refused (BackPressureException) while more than this many notices are
   * due and undelivered; 0 for no limit. Default: 0.
   */
  private Integer maxBacklog;


  public String getNodeId() {
    return nodeId;
  }

  public void setNodeId(String nodeId) {
    this.nodeId = nodeId;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public Duration getLookAhead() {
    return lookAhead;
  }

  public void setLookAhead(Duration lookAhead) {
    this.lookAhead = lookAhead;
  }

  public Duration getNodeTimeout() {
    return nodeTimeout;
  }

  public void setNodeTimeout(Duration nodeTimeout) {
    this.nodeTimeout = nodeTimeout;
  }

  public Integer getClaimBatch() {
    return claimBatch;
  }

  public void setClaimBatch(Integer claimBatch) {
    this.claimBatch = claimBatch;
  }

  public Integer getMaxHeld() {
    return maxHeld;
  }

  public void setMaxHeld(Integer maxHeld) {
    this.maxHeld = maxHeld;
  }

  public Integer getMaxConcurrentDeliveries() {
    return maxConcurrentDeliveries;
  }

  public void setMaxConcurrentDeliveries(Integer maxConcurrentDeliveries) {
    this.maxConcurrentDeliveries = maxConcurrentDeliveries;
  }

  public Integer getMaxConcurrentPerReceiver() {
    return maxConcurrentPerReceiver;
  }

  public void setMaxConcurrentPerReceiver(Integer maxConcurrentPerReceiver) {
    this.maxConcurrentPerReceiver = maxConcurrentPerReceiver;
  }

  public Duration getDeliveryTimeout() {
    return deliveryTimeout;
  }

  public void setDeliveryTimeout(Duration deliveryTimeout) {
    this.deliveryTimeout = deliveryTimeout;
  }

  public Integer getWriteBatch() {
    return writeBatch;
  }

  public void setWriteBatch(Integer writeBatch) {
    this.writeBatch = writeBatch;
  }

  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  public Duration getHistoryRetention() {
    return historyRetention;
  }

  public void setHistoryRetention(Duration historyRetention) {
    this.historyRetention = historyRetention;
  }

  public Duration getHousekeepingInterval() {
    return housekeepingInterval;
  }

  public void setHousekeepingInterval(Duration housekeepingInterval) {
    this.housekeepingInterval = housekeepingInterval;
  }

  public Integer getMaxPayloadBytes() {
    return maxPayloadBytes;
  }

  public void setMaxPayloadBytes(Integer maxPayloadBytes) {
    this.maxPayloadBytes = maxPayloadBytes;
  }

  public Integer getCircuitFailureThreshold() {
    return circuitFailureThreshold;
  }

  public void setCircuitFailureThreshold(Integer circuitFailureThreshold) {
    this.circuitFailureThreshold = circuitFailureThreshold;
  }

  public Duration getCircuitOpenFor() {
    return circuitOpenFor;
  }

  public void setCircuitOpenFor(Duration circuitOpenFor) {
    this.circuitOpenFor = circuitOpenFor;
  }

  public Set<String> getOnlyDefinitions() {
    return onlyDefinitions;
  }

  public void setOnlyDefinitions(Set<String> onlyDefinitions) {
    this.onlyDefinitions = onlyDefinitions;
  }

  public Set<Integer> getOnlyShards() {
    return onlyShards;
  }

  public void setOnlyShards(Set<Integer> onlyShards) {
    this.onlyShards = onlyShards;
  }

  public Integer getMaxBacklog() {
    return maxBacklog;
  }

  public void setMaxBacklog(Integer maxBacklog) {
    this.maxBacklog = maxBacklog;
  }
}
