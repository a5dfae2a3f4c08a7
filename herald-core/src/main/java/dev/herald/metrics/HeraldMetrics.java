package dev.herald.metrics;

import dev.herald.AlertEvent;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.EngineStats;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeCounts;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeReports;
import dev.herald.ReceiverState;
import dev.herald.spi.Channel;
import dev.herald.spi.PeerStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's Micrometer meters: counters and histograms fed by {@link HeraldListener} events, gauges
 * read from the node's {@link EngineStats} and (cached) from the database. Register it as a listener
 * before the engine starts, then {@link #watch} the built {@link Herald} for the gauges:
 *
 * <pre>{@code
 * HeraldMetrics metrics = new HeraldMetrics(registry);
 * Herald herald = Herald.builder().jdbc(url, user, pw).listener(metrics).build();
 * metrics.watch(herald);
 * }</pre>
 *
 * <p>Tags are bounded: {@code definition} (at most {@link #MAX_DEFINITIONS} names, the rest under
 * {@value #OTHER}), {@code outcome}, {@code status}, {@code state}, {@code channel}, {@code peer} (a
 * configured broker or mail server). A notice's own target (a
 * callback URL, say) is never a tag. Every meter is listed in docs/operations.md.
 */
public final class HeraldMetrics implements HeraldListener {
  private static final Logger log = LoggerFactory.getLogger(HeraldMetrics.class);
  /** Distinct definition tag values kept before the rest are counted under {@value #OTHER}. */
  public static final int MAX_DEFINITIONS = 500;
  public static final String OTHER = "_other";

  /**
   * Default bucket boundaries of the latency histograms (lateness, attempt duration): 14 SLO
   * boundaries from 5 ms to 5 minutes, so that each histogram is 17 Prometheus series per tag set.
   */
  public static final List<Duration> DEFAULT_LATENCY_BUCKETS = List.of(Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
      Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
      Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5));
  /** Bucket boundaries of the writer's commit time: 12, from 1 ms to 5 s. */
  static final List<Duration> COMMIT_BUCKETS = List.of(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
      Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
      Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
      Duration.ofSeconds(5));
  /** Most bucket boundaries a latency histogram may have: each is a series per definition. */
  public static final int MAX_BUCKETS = 30;

  private final MeterRegistry registry;
  private final Duration countsMaxAge;
  private final Duration[] latencyBuckets;
  private final double[] percentiles;
  private final Set<String> definitionTags = ConcurrentHashMap.newKeySet();
  private final Set<String> watchedDefinitions = ConcurrentHashMap.newKeySet();
  private final DistributionSummary batchSize;
  private final Timer commitTime;
  private final Counter engineErrors;
  private volatile Herald herald;
  private volatile NoticeReports reports;
  private volatile Map<String, NoticeCounts> counts = Map.of();
  private volatile long countedAtNanos = Long.MIN_VALUE;

  /** Meters on {@code registry}; database counts are read at most every 10 seconds. */
  public HeraldMetrics(MeterRegistry registry) {
    this(registry, Duration.ofSeconds(10));
  }

  /** @param countsMaxAge how long database counts are reused before a scrape reads them again */
  public HeraldMetrics(MeterRegistry registry, Duration countsMaxAge) {
    this(builder(registry).countsMaxAge(countsMaxAge));
  }

  private HeraldMetrics(Builder b) {
    this.registry = b.registry;
    this.countsMaxAge = b.countsMaxAge;
    this.latencyBuckets = b.latencyBuckets.toArray(Duration[]::new);
    this.percentiles = b.percentiles;
    this.batchSize = DistributionSummary.builder("herald.writer.batch.size")
        .description("Attempt outcomes written per group commit").baseUnit("outcomes").register(registry);
    this.commitTime = Timer.builder("herald.writer.commit")
        .description("Time to write and commit one group of attempt outcomes")
        .serviceLevelObjectives(COMMIT_BUCKETS.toArray(Duration[]::new))
        .register(registry);
    // at zero from the start, so that an alert rule on it sees 0, not "no data"
    this.engineErrors = Counter.builder("herald.engine.errors")
        .description("Background steps that failed and will be tried again").register(registry);
  }

  /** Settings beyond the registry: how often database counts are read, histogram buckets, percentiles. */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /** Builds a {@link HeraldMetrics}. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Duration countsMaxAge = Duration.ofSeconds(10);
    private List<Duration> latencyBuckets = DEFAULT_LATENCY_BUCKETS;
    private double[] percentiles = new double[0];

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** How long database counts (gauges) are reused before a scrape reads them again; 10s by default. */
    public Builder countsMaxAge(Duration maxAge) {
      if (maxAge == null || maxAge.isNegative()) {
        throw new InvalidInputException("countsMaxAge", "must be zero or positive, was " + maxAge);
      }
      this.countsMaxAge = maxAge;
      return this;
    }

    /**
     * The bucket boundaries (SLOs) of the lateness and attempt duration histograms, e.g. your
     * objectives: {@code 100ms, 1s, 5s}; {@link #DEFAULT_LATENCY_BUCKETS} by default, at most
     * {@value #MAX_BUCKETS}; none for no histogram.
     */
    public Builder latencyBuckets(Duration... boundaries) {
      if (boundaries.length > MAX_BUCKETS) {
        throw new InvalidInputException("latencyBuckets", "at most " + MAX_BUCKETS + " boundaries (each is a series"
            + " per definition), were " + boundaries.length);
      }
      for (Duration d : boundaries) {
        if (d == null || d.isNegative() || d.isZero()) {
          throw new InvalidInputException("latencyBuckets", "every boundary must be positive, was " + d);
        }
      }
      this.latencyBuckets = List.of(boundaries);
      return this;
    }

    /**
     * Percentiles computed on this node (e.g. {@code 0.5, 0.99}) published beside the buckets. They
     * cannot be added up across nodes or definitions: prefer the buckets and {@code histogram_quantile}.
     */
    public Builder percentiles(double... quantiles) {
      for (double q : quantiles) {
        if (!(q > 0 && q < 1)) {
          throw new InvalidInputException("percentiles", "each must be between 0 and 1 (exclusive), was " + q);
        }
      }
      this.percentiles = quantiles.clone();
      return this;
    }

    public HeraldMetrics build() {
      return new HeraldMetrics(this);
    }
  }

  /** Registers the gauges of a built Herald: this node's in-memory counts, circuits, and database counts. */
  public HeraldMetrics watch(Herald h) {
    this.herald = h;
    this.reports = h.reports();
    nodeGauge("herald.notices.held", "Notices this node holds in memory (claimed, waiting or running)", EngineStats::held);
    nodeGauge("herald.notices.waiting.slot", "Due notices waiting for a free delivery slot", EngineStats::waitingForSlot);
    nodeGauge("herald.attempts.active", "Attempts running now", EngineStats::delivering);
    nodeGauge("herald.writer.queue", "Attempt outcomes waiting to be written", EngineStats::outcomesUnwritten);
    Gauge.builder("herald.circuits", this, m -> m.stat(EngineStats::openCircuits))
        .description("Receivers whose circuit is in this state").tag("state", "open").register(registry);
    Gauge.builder("herald.circuits", this, m -> m.stat(EngineStats::halfOpenCircuits))
        .description("Receivers whose circuit is in this state").tag("state", "half_open").register(registry);
    for (NoticeDefinition d : h.definitions().list()) {
      watchDefinition(d.name());
    }
    for (Channel c : h.channels()) {
      watchPeers(c);
    }
    return this;
  }

  /**
   * A channel's peers: how many are in each state, and for each broker or mail server (configured, so
   * bounded) whether it is up: 1 up, 0 down, NaN before the channel first tried it. Endpoints are not
   * tags of their own (a callback URL per notice would be unbounded).
   */
  private void watchPeers(Channel c) {
    List<PeerStatus> known = c.peers();
    if (known.isEmpty() && c.name().equals(NoticeDefinition.LOCAL_CHANNEL)) {
      return;
    }
    for (PeerStatus.State state : PeerStatus.State.values()) {
      Gauge.builder("herald.channel.peers", c, ch -> ch.peers().stream().filter(p -> p.state() == state).count())
          .description("Peers of the channel (brokers, mail servers, endpoints) in this state")
          .tag("channel", c.name()).tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry);
    }
    for (PeerStatus p : known) {
      if (p.kind().infrastructure()) {
        String peer = p.peer();
        Gauge.builder("herald.channel.peer.up", c, ch -> up(ch, peer))
            .description("Whether the broker or mail server answers: 1 up, 0 down, NaN not tried yet")
            .tag("channel", c.name()).tag("peer", peer).register(registry);
      }
    }
  }

  private static double up(Channel c, String peer) {
    for (PeerStatus p : c.peers()) {
      if (p.peer().equals(peer)) {
        return switch (p.state()) {
          case UP -> 1;
          case DOWN -> 0;
          case UNKNOWN -> Double.NaN;
        };
      }
    }
    return Double.NaN;
  }

  private void nodeGauge(String name, String description, ToDoubleFunction<EngineStats> value) {
    Gauge.builder(name, this, m -> m.stat(value)).description(description).register(registry);
  }

  private double stat(ToDoubleFunction<EngineStats> value) {
    Herald h = herald;
    return h == null ? Double.NaN : value.applyAsDouble(h.stats());
  }

  /**
   * Per-definition meters, once per definition (bounded like every definition tag): its counters at
   * zero, so that rules on them see 0 rather than "no data" before the first event, and its gauges.
   */
  private void watchDefinition(String definition) {
    String tag = tag(definition);
    if (herald == null || tag.equals(OTHER) || !watchedDefinitions.add(tag)) {
      return;
    }
    counter(ENQUEUED, ENQUEUED_TEXT, tag);
    counter(DELIVERED, DELIVERED_TEXT, tag);
    counter(RETRIED, RETRIED_TEXT, tag);
    counter(ALERTS, ALERTS_TEXT, tag);
    for (String status : List.of("succeeded", "dead", "cancelled")) {
      finished(tag, status);
    }
    countGauge("herald.notices.backlog", "Backlog: live notices whose fire time has passed (waiting for an attempt,"
        + " a retry or a confirmation)", tag, NoticeCounts::backlog);
    TimeGauge.builder("herald.notices.backlog.age", this, TimeUnit.SECONDS,
            m -> m.counts().getOrDefault(tag, ZERO).backlogAge(m.herald.clock().instant()).toMillis() / 1000.0)
        .description("How long ago the oldest notice of the backlog was due to fire; 0 when it is empty")
        .tag("definition", tag).register(registry);
    countGauge("herald.notices.due", "Live notices whose next attempt (or confirm timeout) is due now: part of the"
        + " backlog", tag,
        NoticeCounts::due);
    countGauge("herald.notices.awaiting.confirm", "Delivered notices waiting for the receiver's confirmation", tag,
        NoticeCounts::awaitingConfirm);
    countGauge("herald.notices.live", "Notices not finished yet", tag, NoticeCounts::live);
    countGauge("herald.notices.dead", "DEAD notices kept in history", tag, NoticeCounts::dead);
    Gauge.builder("herald.circuit.state", this, m -> m.circuit(tag))
        .description("Circuit of the definition's own target: 0 closed, 1 half-open, 2 open")
        .tag("definition", tag).register(registry);
  }

  private void countGauge(String name, String description, String definition,
      ToDoubleFunction<NoticeCounts> value) {
    Gauge.builder(name, this, m -> value.applyAsDouble(m.counts().getOrDefault(definition, ZERO)))
        .description(description).tag("definition", definition).baseUnit("notices").register(registry);
  }

  private static final NoticeCounts ZERO = NoticeCounts.NONE;

  private double circuit(String definition) {
    try {
      ReceiverState s = herald.receiverState(definition);
      return switch (s) {
        case CLOSED -> 0;
        case HALF_OPEN -> 1;
        case OPEN -> 2;
      };
    } catch (RuntimeException e) {
      return Double.NaN; // deleted meanwhile
    }
  }

  /** Database counts, read again when older than {@code countsMaxAge}; the last ones if the read fails. */
  synchronized Map<String, NoticeCounts> counts() {
    long now = System.nanoTime();
    if (reports != null && (countedAtNanos == Long.MIN_VALUE || now - countedAtNanos >= countsMaxAge.toNanos())) {
      countedAtNanos = now;
      try {
        counts = reports.countByDefinition(herald.clock().instant());
        // definitions saved since (here or on another node) get their meters at 0 before their first notice
        herald.definitions().list().forEach(d -> watchDefinition(d.name()));
      } catch (RuntimeException e) {
        log.warn("Herald metrics: cannot count notices: {}", e.getMessage());
      }
    }
    return counts;
  }

  /** The definition's tag value: its name, or {@value #OTHER} past {@link #MAX_DEFINITIONS} names. */
  String tag(String definition) {
    if (definitionTags.contains(definition)) {
      return definition;
    }
    if (definitionTags.size() >= MAX_DEFINITIONS) {
      return OTHER;
    }
    definitionTags.add(definition);
    return definition;
  }

  private static final String ENQUEUED = "herald.notices.enqueued";
  private static final String ENQUEUED_TEXT = "Notices enqueued and committed";
  private static final String DELIVERED = "herald.notices.delivered";
  private static final String DELIVERED_TEXT = "Attempts the receiver took";
  private static final String RETRIED = "herald.notices.retried";
  private static final String RETRIED_TEXT = "Failed attempts with a retry scheduled";
  private static final String ALERTS = "herald.alerts";
  private static final String ALERTS_TEXT = "Alerts raised by definitions' alert policies";

  @Override
  public void onEnqueued(Notice notice) {
    watchDefinition(notice.definition());
    counter(ENQUEUED, ENQUEUED_TEXT, tag(notice.definition())).increment();
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    String definition = tag(notice.definition());
    String outcome = attempt.outcome().name().toLowerCase(Locale.ROOT);
    latency(Timer.builder("herald.attempt.duration").description("How long a channel took for one attempt")
        .tag("definition", definition).tag("outcome", outcome)).record(attempt.duration());
    if (attempt.number() == 1) {
      Duration late = Duration.between(notice.fireAt(), attempt.startedAt());
      latency(Timer.builder("herald.delivery.lateness")
          .description("From a notice's fire time to the start of its first attempt")
          .tag("definition", definition)).record(late.isNegative() ? Duration.ZERO : late);
    }
    if (attempt.outcome() == DeliveryResult.Outcome.DELIVERED || attempt.outcome() == DeliveryResult.Outcome.AWAIT_CONFIRM) {
      counter(DELIVERED, DELIVERED_TEXT, definition).increment();
    } else if (!notice.status().isFinished()) { // FAILED, or IN_FLIGHT when the retry is kept in memory
      counter(RETRIED, RETRIED_TEXT, definition).increment();
    }
  }

  private Timer latency(Timer.Builder b) {
    if (latencyBuckets.length > 0) {
      b.serviceLevelObjectives(latencyBuckets);
    }
    if (percentiles.length > 0) {
      b.publishPercentiles(percentiles);
    }
    return b.register(registry);
  }

  @Override
  public void onFinished(Notice notice) {
    finished(tag(notice.definition()), notice.status().name().toLowerCase(Locale.ROOT)).increment();
  }

  private Counter finished(String definitionTag, String status) {
    return Counter.builder("herald.notices.finished").description("Notices that reached a final status")
        .tag("definition", definitionTag).tag("status", status).register(registry);
  }

  @Override
  public void onAlert(AlertEvent alert) {
    counter(ALERTS, ALERTS_TEXT, tag(alert.notice().definition())).increment();
  }

  @Override
  public void onOutcomesWritten(int outcomes, Duration took) {
    batchSize.record(outcomes);
    commitTime.record(took);
  }

  @Override
  public void onEngineError(String step, Throwable error) {
    engineErrors.increment(); // the step text may name a notice: not a tag
  }

  private Counter counter(String name, String description, String definitionTag) {
    return Counter.builder(name).description(description).tag("definition", definitionTag).register(registry);
  }
}
