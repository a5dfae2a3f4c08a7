package dev.herald;

import java.time.Duration;

/**
 * The engine settings half of {@link Herald.Builder}: how this node polls, holds, delivers, opens
 * circuits and shares work. Every setting has a default; {@link #engineSettings} freezes them.
 */
abstract sealed class EngineTuning permits Herald.Builder {
  private String nodeId;
  private Duration pollInterval = Duration.ofSeconds(1);
  private Duration lookAhead = Duration.ofSeconds(5);
  private Duration nodeTimeout = Duration.ofSeconds(2);
  private int claimBatch = 500;
  private int maxHeld = 10_000;
  private int maxConcurrentDeliveries = 1024;
  private int maxConcurrentPerReceiver = 64;
  private Duration deliveryTimeout = Duration.ofMinutes(5);
  private int writeBatch = 1_000;
  private Duration shutdownTimeout = Duration.ofSeconds(30);
  private Duration historyRetention = Duration.ofDays(30);
  private Duration housekeepingInterval = Duration.ofMinutes(10);
  private int maxPayloadBytes = 1 << 20;
  private int circuitFailureThreshold = 5;
  private Duration circuitOpenFor = Duration.ofSeconds(30);
  /** As given; checked by {@link Herald.Builder#build()}, which names a bad one. */
  private record SlowCallsGiven(Duration threshold, double rate, int window, int minimumCalls) {}

  private SlowCallsGiven circuitSlowCalls;
  private java.util.Set<String> onlyDefinitions = java.util.Set.of();
  private java.util.Set<Integer> onlyShards = java.util.Set.of();
  private int maxBacklog;
  private java.util.function.Supplier<String> traceContext;
  private dev.herald.spi.AttemptObserver attemptObserver;

  EngineTuning() {}

  private Herald.Builder self() {
    return (Herald.Builder) this;
  }

  /**
   * This node's name; unique among running nodes. Default: {@code embedded} on the embedded H2
   * file (one process at a time), otherwise host name and process id. A node restarted with the
   * same id takes back what it held at once; otherwise other nodes take it over once the dead
   * node's heartbeat is {@link #nodeTimeout older than the node timeout}.
   */
  public Herald.Builder nodeId(String id) {
    this.nodeId = id;
    return self();
  }

  public Herald.Builder pollInterval(Duration d) {
    this.pollInterval = d;
    return self();
  }

  public Herald.Builder lookAhead(Duration d) {
    this.lookAhead = d;
    return self();
  }

  /**
   * No longer used: a node now holds its notices while its heartbeat is fresh (see {@link
   * #nodeTimeout}). Kept for one release so that existing code compiles; it changes nothing.
   */
  @Deprecated(forRemoval = true)
  public Herald.Builder lease(Duration d) {
    return self();
  }

  /**
   * How long a node may go without a heartbeat before other nodes take over its notices (default
   * 2 s; it beats every quarter of this). A node that cannot beat for three quarters of it starts
   * no new attempt, so that it never delivers what another node has taken over.
   */
  public Herald.Builder nodeTimeout(Duration d) {
    this.nodeTimeout = d;
    return self();
  }

  public Herald.Builder claimBatch(int n) {
    this.claimBatch = n;
    return self();
  }

  public Herald.Builder maxHeld(int n) {
    this.maxHeld = n;
    return self();
  }

  /** Most attempts running at once on this node (default 1024): a bound on memory, not on any receiver. */
  public Herald.Builder maxConcurrentDeliveries(int n) {
    this.maxConcurrentDeliveries = n;
    return self();
  }

  /**
   * Most attempts running at once to one receiver (default 64) whose channel sets no limit of its
   * own ({@link dev.herald.spi.Channel#maxConcurrentPerReceiver}): a handler, a mail server. More
   * wait in that receiver's line, first come first served, without holding the timer or other
   * receivers.
   */
  public Herald.Builder maxConcurrentPerReceiver(int n) {
    this.maxConcurrentPerReceiver = n;
    return self();
  }

  public Herald.Builder deliveryTimeout(Duration d) {
    this.deliveryTimeout = d;
    return self();
  }

  public Herald.Builder writeBatch(int n) {
    this.writeBatch = n;
    return self();
  }

  public Herald.Builder shutdownTimeout(Duration d) {
    this.shutdownTimeout = d;
    return self();
  }

  public Herald.Builder historyRetention(Duration d) {
    this.historyRetention = d;
    return self();
  }

  public Herald.Builder housekeepingInterval(Duration d) {
    this.housekeepingInterval = d;
    return self();
  }

  public Herald.Builder maxPayloadBytes(int n) {
    this.maxPayloadBytes = n;
    return self();
  }

  /** Consecutive failed attempts after which {@link Herald#deliverNow} stops delivering inline. */
  public Herald.Builder circuitFailureThreshold(int n) {
    this.circuitFailureThreshold = n;
    return self();
  }

  /**
   * Opens a receiver's sync-first circuit on rising response times too: when of its last {@code
   * window} attempts (at least {@code minimumCalls}) a share of {@code rate} took {@code threshold}
   * or longer. Default 10 s, 0.5, 20, 10; {@code Duration.ZERO} turns it off.
   */
  public Herald.Builder circuitSlowCalls(Duration threshold, double rate, int window, int minimumCalls) {
    this.circuitSlowCalls = new SlowCallsGiven(threshold, rate, window, minimumCalls);
    return self();
  }

  /** How long an open receiver circuit defers inline delivery before probing again. */
  public Herald.Builder circuitOpenFor(Duration d) {
    this.circuitOpenFor = d;
    return self();
  }

  /** Node affinity: this node delivers only these definitions (others are left to other nodes). */
  public Herald.Builder onlyDefinitions(java.util.Set<String> names) {
    this.onlyDefinitions = names;
    return self();
  }

  /** Node affinity: this node delivers only notices in these shards (0 to {@code Shards.COUNT - 1}). */
  public Herald.Builder onlyShards(java.util.Set<Integer> shardSet) {
    this.onlyShards = shardSet;
    return self();
  }

  /** Flow control: refuse enqueue while more than this many notices are due and undelivered; 0 = no limit. */
  public Herald.Builder maxBacklog(int n) {
    this.maxBacklog = n;
    return self();
  }

  /**
   * Where a notice enqueued without a {@link NoticeRequest#traceparent} takes its trace context: the
   * W3C {@code traceparent} of the current span on the enqueuing thread, or null for none (a value
   * that is not a valid traceparent is ignored). {@code dev.herald.tracing.HeraldTracing#currentTraceparent}
   * reads it from a Micrometer Tracing {@code Tracer}.
   */
  public Herald.Builder traceContext(java.util.function.Supplier<String> currentTraceparent) {
    this.traceContext = currentTraceparent;
    return self();
  }

  /**
   * Watches every attempt: {@code dev.herald.tracing.AttemptObservations} makes each one a
   * Micrometer Observation, child of the notice's trace, and sends its span as the traceparent.
   */
  public Herald.Builder attemptObserver(dev.herald.spi.AttemptObserver observer) {
    this.attemptObserver = observer;
    return self();
  }

  private dev.herald.SlowCalls slowCalls() {
    if (circuitSlowCalls == null) {
      return dev.herald.SlowCalls.DEFAULT;
    }
    SlowCallsGiven g = circuitSlowCalls;
    return g.threshold() != null && g.threshold().isZero() ? dev.herald.SlowCalls.OFF
        : new dev.herald.SlowCalls(g.threshold(), g.rate(), g.window(), g.minimumCalls());
  }

  /** The settings as given, with {@code defaultNodeId} where no node id was set. */
  EngineSettings engineSettings(String defaultNodeId) {
    return new EngineSettings(nodeId != null ? nodeId : defaultNodeId, pollInterval, lookAhead, nodeTimeout, claimBatch,
        maxHeld, maxConcurrentDeliveries, maxConcurrentPerReceiver, deliveryTimeout, writeBatch, shutdownTimeout,
        historyRetention, housekeepingInterval, maxPayloadBytes, circuitFailureThreshold, circuitOpenFor, onlyDefinitions,
        onlyShards, maxBacklog, slowCalls());
  }

  dev.herald.engine.Tracing tracing() {
    return new dev.herald.engine.Tracing(traceContext, attemptObserver);
  }
}
