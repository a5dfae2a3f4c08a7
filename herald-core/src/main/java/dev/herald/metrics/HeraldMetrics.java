package dev.herald.metrics;

import dev.herald.AlertEvent;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.EngineStats;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.ReceiverState;
import dev.herald.store.jdbc.NoticeCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * {@value #OTHER}), {@code outcome}, {@code status}, {@code state}. A notice's own target (a
 * callback URL, say) is never a tag. Every meter is listed in the README's metrics table.
 */
public final class HeraldMetrics implements HeraldListener {
  private static final Logger log = LoggerFactory.getLogger(HeraldMetrics.class);
  /** Distinct definition tag values kept before the rest are counted under {@value #OTHER}. */
  public static final int MAX_DEFINITIONS = 500;
  public static final String OTHER = "_other";

  private final MeterRegistry registry;
  private final Duration countsMaxAge;
  private final Set<String> definitionTags = ConcurrentHashMap.newKeySet();
  private final Set<String> watchedDefinitions = ConcurrentHashMap.newKeySet();
  private final DistributionSummary batchSize;
  private final Timer commitTime;
  private volatile Herald herald;
  private volatile NoticeCounts noticeCounts;
  private volatile Map<String, NoticeCounts.Counts> counts = Map.of();
  private volatile long countedAtNanos = Long.MIN_VALUE;

  /** Meters on {@code registry}; database counts are read at most every 10 seconds. */
  public HeraldMetrics(MeterRegistry registry) {
    this(registry, Duration.ofSeconds(10));
  }

  /** @param countsMaxAge how long database counts are reused before a scrape reads them again */
  public HeraldMetrics(MeterRegistry registry, Duration countsMaxAge) {
    this.registry = registry;
    this.countsMaxAge = countsMaxAge;
    this.batchSize = DistributionSummary.builder("herald.writer.batch.size")
        .description("Attempt outcomes written per group commit").baseUnit("outcomes").register(registry);
    this.commitTime = Timer.builder("herald.writer.commit")
        .description("Time to write and commit one group of attempt outcomes").publishPercentileHistogram()
        .register(registry);
  }

  /** Registers the gauges of a built Herald: this node's in-memory counts, circuits, and database counts. */
  public HeraldMetrics watch(Herald h) {
    this.herald = h;
    this.noticeCounts = new NoticeCounts(h.dataSource());
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
    return this;
  }

  private void nodeGauge(String name, String description, ToDoubleFunction<EngineStats> value) {
    Gauge.builder(name, this, m -> m.stat(value)).description(description).register(registry);
  }

  private double stat(ToDoubleFunction<EngineStats> value) {
    Herald h = herald;
    return h == null ? Double.NaN : value.applyAsDouble(h.stats());
  }

  /** Per-definition gauges, once per definition (bounded like every definition tag). */
  private void watchDefinition(String definition) {
    String tag = tag(definition);
    if (herald == null || tag.equals(OTHER) || !watchedDefinitions.add(tag)) {
      return;
    }
    countGauge("herald.notices.due", "Live notices due now (delivery or confirm timeout reached)", tag,
        NoticeCounts.Counts::due);
    countGauge("herald.notices.awaiting.confirm", "Delivered notices waiting for the receiver's confirmation", tag,
        NoticeCounts.Counts::awaitingConfirm);
    countGauge("herald.notices.live", "Notices not finished yet", tag, NoticeCounts.Counts::live);
    countGauge("herald.notices.dead", "DEAD notices kept in history", tag, NoticeCounts.Counts::dead);
    Gauge.builder("herald.circuit.state", this, m -> m.circuit(tag))
        .description("Circuit of the definition's own target: 0 closed, 1 half-open, 2 open")
        .tag("definition", tag).register(registry);
  }

  private void countGauge(String name, String description, String definition,
      ToDoubleFunction<NoticeCounts.Counts> value) {
    Gauge.builder(name, this, m -> value.applyAsDouble(m.counts().getOrDefault(definition, ZERO)))
        .description(description).tag("definition", definition).baseUnit("notices").register(registry);
  }

  private static final NoticeCounts.Counts ZERO = new NoticeCounts.Counts(0, 0, 0, 0);

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
  synchronized Map<String, NoticeCounts.Counts> counts() {
    long now = System.nanoTime();
    if (noticeCounts != null && (countedAtNanos == Long.MIN_VALUE || now - countedAtNanos >= countsMaxAge.toNanos())) {
      countedAtNanos = now;
      try {
        counts = noticeCounts.byDefinition(herald.clock().instant());
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

  @Override
  public void onEnqueued(Notice notice) {
    watchDefinition(notice.definition());
    counter("herald.notices.enqueued", "Notices enqueued and committed", notice.definition()).increment();
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    String definition = tag(notice.definition());
    String outcome = attempt.outcome().name().toLowerCase(Locale.ROOT);
    Timer.builder("herald.attempt.duration").description("How long a channel took for one attempt")
        .tag("definition", definition).tag("outcome", outcome).publishPercentileHistogram()
        .register(registry).record(attempt.duration());
    if (attempt.number() == 1) {
      Duration late = Duration.between(notice.fireAt(), attempt.startedAt());
      Timer.builder("herald.delivery.lateness")
          .description("From a notice's fire time to the start of its first attempt")
          .tag("definition", definition).publishPercentileHistogram()
          .register(registry).record(late.isNegative() ? Duration.ZERO : late);
    }
    if (attempt.outcome() == DeliveryResult.Outcome.DELIVERED || attempt.outcome() == DeliveryResult.Outcome.AWAIT_CONFIRM) {
      counter("herald.notices.delivered", "Attempts the receiver took", notice.definition()).increment();
    } else if (!notice.status().isFinished()) { // FAILED, or IN_FLIGHT when the retry is kept in memory
      counter("herald.notices.retried", "Failed attempts with a retry scheduled", notice.definition()).increment();
    }
  }

  @Override
  public void onFinished(Notice notice) {
    Counter.builder("herald.notices.finished").description("Notices that reached a final status")
        .tag("definition", tag(notice.definition()))
        .tag("status", notice.status().name().toLowerCase(Locale.ROOT)).register(registry).increment();
  }

  @Override
  public void onAlert(AlertEvent alert) {
    counter("herald.alerts", "Alerts raised by definitions' alert policies", alert.notice().definition()).increment();
  }

  @Override
  public void onOutcomesWritten(int outcomes, Duration took) {
    batchSize.record(outcomes);
    commitTime.record(took);
  }

  @Override
  public void onEngineError(String step, Throwable error) {
    // the step text may name a notice: not a tag
    Counter.builder("herald.engine.errors").description("Background steps that failed and will be tried again")
        .register(registry).increment();
  }

  private Counter counter(String name, String description, String definition) {
    return Counter.builder(name).description(description).tag("definition", tag(definition)).register(registry);
  }
}
