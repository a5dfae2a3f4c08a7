package dev.herald.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Meters fed by a real engine on H2: counts per definition, histograms, gauges, bounded tags. */
class HeraldMetricsTest {
  @TempDir Path dir;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private Herald herald;

  @AfterEach
  void close() {
    if (herald != null) {
      herald.close();
    }
  }

  @Test
  void countsHistogramsAndGaugesFollowRealDeliveries() {
    HeraldMetrics metrics = new HeraldMetrics(registry, Duration.ZERO);
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .listener(metrics)
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .define(NoticeDefinition.builder("flaky").handler("failing").retry("10ms").maxAttempts(2)
            .alert(AlertPolicy.finalFailure()).build())
        .handler("ok", ctx -> DeliveryResult.delivered())
        .handler("failing", ctx -> DeliveryResult.retry("receiver down"))
        .build();
    metrics.watch(herald);
    herald.start();

    for (int i = 0; i < 3; i++) {
      herald.enqueue(NoticeRequest.of("ok", "{\"n\":" + i + "}").description("order merchant-" + i));
    }
    Notice flaky = herald.enqueue("flaky", "{}");
    Notice later = herald.enqueue(NoticeRequest.of("ok", "{\"later\":true}").delay(Duration.ofHours(1)));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(herald.operations().find(flaky.id()).orElseThrow()
        .notice()).extracting(Notice::status).isEqualTo(NoticeStatus.DEAD));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(count("herald.notices.delivered", "ok"))
        .as(registry.getMetersAsString()).isEqualTo(3));
    herald.operations().cancel(later.id());

    assertThat(count("herald.notices.enqueued", "ok")).isEqualTo(4);
    assertThat(count("herald.notices.enqueued", "flaky")).isEqualTo(1);
    assertThat(count("herald.notices.retried", "flaky")).as("first failure: retry scheduled").isEqualTo(1);
    assertThat(registry.get("herald.notices.finished").tags("definition", "flaky", "status", "dead").counter().count())
        .isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> registry.find("herald.notices.finished")
        .tags("definition", "ok", "status", "cancelled").counter() != null);
    await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("herald.notices.finished")
        .tags("definition", "ok", "status", "succeeded").counter().count() == 3);
    assertThat(registry.get("herald.alerts").tag("definition", "flaky").counter().count()).isEqualTo(1);

    assertThat(registry.get("herald.delivery.lateness").tag("definition", "ok").timer().count())
        .as("one lateness sample per first attempt").isEqualTo(3);
    assertThat(registry.get("herald.attempt.duration").tags("definition", "flaky", "outcome", "retry").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("herald.attempt.duration").tags("definition", "flaky", "outcome", "fail").timer().count())
        .as("the last attempt, with no retry left").isEqualTo(1);
    assertThat(registry.get("herald.writer.batch.size").summary().count()).isPositive();
    assertThat(registry.get("herald.writer.commit").timer().count()).isPositive();

    assertThat(registry.get("herald.notices.dead").tag("definition", "flaky").gauge().value()).isEqualTo(1);
    assertThat(registry.get("herald.notices.live").tag("definition", "ok").gauge().value()).isZero();
    assertThat(registry.get("herald.notices.due").tag("definition", "ok").gauge().value()).isZero();
    assertThat(registry.get("herald.notices.held").gauge().value()).isZero();
    assertThat(registry.get("herald.circuit.state").tag("definition", "flaky").gauge().value())
        .as("two failures stay under the default threshold: closed").isZero();
    assertThat(registry.get("herald.circuits").tag("state", "open").gauge().value()).isZero();

    Set<String> tagKeys = new HashSet<>();
    for (Meter m : registry.getMeters()) {
      for (Tag t : m.getId().getTags()) {
        tagKeys.add(t.getKey());
        assertThat(t.getValue()).as("nothing of a single notice is a tag value").doesNotContain("merchant");
      }
    }
    assertThat(tagKeys).as("le: a histogram bucket").isSubsetOf("definition", "outcome", "status", "state", "le");
    assertThat(registry.get("herald.notices.backlog").tag("definition", "ok").gauge().value()).isZero();
  }

  /** What alert rules need: counters at 0 before their first event, and one backlog that counts retries too. */
  @Test
  void countersStartAtZeroAndTheBacklogHoldsEveryLiveNoticePastItsFireTime() {
    HeraldMetrics metrics = new HeraldMetrics(registry, Duration.ZERO);
    dev.herald.testing.SettableClock clock = dev.herald.testing.SettableClock.startingNow();
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(clock)
        .listener(metrics)
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .define(NoticeDefinition.builder("down").handler("down").retry("1h").build())
        .handler("ok", ctx -> DeliveryResult.delivered())
        .handler("down", ctx -> DeliveryResult.retry("receiver down"))
        .build();
    metrics.watch(herald);
    dev.herald.testing.ManualRunner runner = new dev.herald.testing.ManualRunner(herald, clock);

    assertThat(registry.get("herald.engine.errors").counter().count()).isZero();
    for (String name : List.of("herald.alerts", "herald.notices.enqueued", "herald.notices.delivered",
        "herald.notices.retried")) {
      assertThat(registry.get(name).tag("definition", "ok").counter().count()).as(name).isZero();
    }
    assertThat(registry.get("herald.notices.finished").tags("definition", "down", "status", "dead").counter().count())
        .isZero();

    for (int i = 0; i < 3; i++) {
      herald.enqueue("down", "{\"n\":" + i + "}");
    }
    herald.enqueue(NoticeRequest.of("down", "{\"later\":1}").delay(Duration.ofHours(2)));
    runner.runDue();
    clock.advance(Duration.ofSeconds(90));
    assertThat(gauge("herald.notices.backlog", "down")).as("waiting for their retry in an hour: still owed").isEqualTo(3);
    assertThat(gauge("herald.notices.due", "down")).as("none due for an attempt right now").isZero();
    assertThat(registry.get("herald.notices.backlog.age").tag("definition", "down").gauge().value()).isEqualTo(90);
    assertThat(gauge("herald.notices.backlog", "ok")).isZero();
    assertThat(registry.get("herald.notices.backlog.age").tag("definition", "ok").gauge().value()).isZero();

    runner.runDue(); // nothing due: the retries wait an hour
    herald.enqueue("ok", "{}");
    runner.runDue();
    Timer lateness = registry.get("herald.delivery.lateness").tag("definition", "ok").timer();
    assertThat(lateness.takeSnapshot().histogramCounts()).as("the default SLO buckets, not Micrometer's 69")
        .hasSize(HeraldMetrics.DEFAULT_LATENCY_BUCKETS.size()).hasSizeLessThanOrEqualTo(20);
  }

  @Test
  void latencyBucketsAndPercentilesAreConfigurable() {
    HeraldMetrics metrics = HeraldMetrics.builder(registry).latencyBuckets(Duration.ofMillis(100), Duration.ofSeconds(1))
        .percentiles(0.99).build();
    metrics.onAttempt(new Notice(java.util.UUID.randomUUID(), "d", "{}", null, null, NoticeStatus.SUCCEEDED, 1,
            java.time.Instant.EPOCH, null, java.time.Instant.EPOCH, null, java.time.Instant.EPOCH, java.time.Instant.EPOCH,
            java.time.Instant.EPOCH, null),
        new dev.herald.Attempt(java.util.UUID.randomUUID(), 1, java.time.Instant.EPOCH, Duration.ofMillis(300),
            DeliveryResult.Outcome.DELIVERED, null, "n"));
    var snapshot = registry.get("herald.attempt.duration").timer().takeSnapshot();
    assertThat(snapshot.histogramCounts()).extracting(c -> c.bucket(java.util.concurrent.TimeUnit.MILLISECONDS))
        .containsExactly(100.0, 1000.0);
    assertThat(snapshot.percentileValues()).hasSize(1);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HeraldMetrics.builder(registry).percentiles(99))
        .isInstanceOf(dev.herald.InvalidInputException.class).hasMessageContaining("percentiles");
  }

  private double gauge(String name, String definition) {
    return registry.get(name).tag("definition", definition).gauge().value();
  }

  @Test
  void definitionTagValuesAreBounded() {
    HeraldMetrics metrics = new HeraldMetrics(registry);
    for (int i = 0; i < HeraldMetrics.MAX_DEFINITIONS; i++) {
      assertThat(metrics.tag("d" + i)).isEqualTo("d" + i);
    }
    assertThat(metrics.tag("one-too-many")).isEqualTo(HeraldMetrics.OTHER);
    assertThat(metrics.tag("d7")).as("names seen before keep their tag").isEqualTo("d7");
  }

  private double count(String name, String definition) {
    var c = registry.find(name).tag("definition", definition).counter();
    return c == null ? 0 : c.count();
  }
}
