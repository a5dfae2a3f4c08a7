package dev.herald.server.console;

import dev.herald.AttemptSample;
import dev.herald.DeliveryResult;
import dev.herald.NoticeReports;
import dev.herald.NoticeScope;
import dev.herald.server.NoticeOwners;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The overview's series, read through the core's {@link NoticeReports} (attempt samples, backlog at
 * instants): deliveries, failures, p99 lateness of first attempts, and backlog per time bucket,
 * optionally for one definition. The backlog is Herald's one definition of it ({@link
 * dev.herald.NoticeCounts}, as the gauge
 * {@code herald.notices.backlog} and the health component count it): notices past their fire time and
 * not finished at the bucket's end. The attempt log is kept as long as history is ({@code herald.history-retention}).
 */
final class Charts {
  /** A window of {@code buckets} buckets ending now. */
  enum Range {
    HOUR(Duration.ofHours(1), 60),
    DAY(Duration.ofDays(1), 96);

    final Duration length;
    final int buckets;

    Range(Duration length, int buckets) {
      this.length = length;
      this.buckets = buckets;
    }

    static Range parse(String s) {
      return "day".equalsIgnoreCase(s) ? DAY : HOUR;
    }
  }

  /** Series over one window: bucket start times (epoch ms) and a value per bucket. */
  record Series(long[] starts, long[] deliveries, long[] failures, double[] latenessP99Ms, long[] backlog) {
    long totalDeliveries() {
      return Arrays.stream(deliveries).sum();
    }

    long totalFailures() {
      return Arrays.stream(failures).sum();
    }
  }

  /** First attempts read for lateness; beyond this a window's p99 is computed from the newest ones. */
  static final int MAX_LATENESS_SAMPLES = 200_000;

  private final NoticeReports reports;

  Charts(NoticeReports reports) {
    this.reports = reports;
  }

  Series series(Range range, String definition, Instant now) {
    return series(range, definition, null, now);
  }

  /** @param tenant only this tenant's notices; null for every tenant's */
  Series series(Range range, String definition, String tenant, Instant now) {
    long end = now.toEpochMilli();
    long start = end - range.length.toMillis();
    long width = range.length.toMillis() / range.buckets;
    int n = range.buckets;
    long[] starts = new long[n];
    List<Instant> ends = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      starts[i] = start + i * width;
      ends.add(Instant.ofEpochMilli(starts[i] + width));
    }
    long[] deliveries = new long[n];
    long[] failures = new long[n];
    List<List<Long>> lateness = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lateness.add(new ArrayList<>());
    }
    String def = definition == null || definition.isBlank() ? null : definition;
    NoticeScope scope = tenant == null ? null : NoticeOwners.scope(tenant);
    for (AttemptSample a : reports.attemptSamples(Instant.ofEpochMilli(start), now, def, scope,
        MAX_LATENESS_SAMPLES)) {
      long at = a.startedAt().toEpochMilli();
      int b = (int) Math.min(n - 1, (at - start) / width);
      if (a.outcome() == DeliveryResult.Outcome.DELIVERED || a.outcome() == DeliveryResult.Outcome.AWAIT_CONFIRM) {
        deliveries[b]++;
      } else {
        failures[b]++;
      }
      if (a.number() == 1) {
        lateness.get(b).add(Math.max(0, at - a.fireAt().toEpochMilli()));
      }
    }
    long[] backlog = reports.backlogAt(ends, def, scope);
    double[] p99 = new double[n];
    for (int i = 0; i < n; i++) {
      p99[i] = p99(lateness.get(i));
    }
    return new Series(starts, deliveries, failures, p99, backlog);
  }

  static double p99(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
    int index = (int) Math.ceil(0.99 * v.length) - 1;
    return v[Math.max(0, index)];
  }
}
