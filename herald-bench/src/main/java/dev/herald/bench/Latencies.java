package dev.herald.bench;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;

/** A latency distribution in microseconds (HdrHistogram, 3 significant digits); negative samples are counted apart. */
final class Latencies {
  private final ConcurrentHistogram histogram = new ConcurrentHistogram(3);
  private final AtomicLong early = new AtomicLong();
  private final AtomicLong earliestMicros = new AtomicLong();

  void recordMicros(long micros) {
    if (micros < 0) {
      early.incrementAndGet();
      earliestMicros.accumulateAndGet(micros, Math::min);
      micros = 0;
    }
    histogram.recordValue(micros);
  }

  long count() {
    return histogram.getTotalCount();
  }

  double percentileMillis(double p) {
    return count() == 0 ? Double.NaN : histogram.getValueAtPercentile(p) / 1000.0;
  }

  double maxMillis() {
    return count() == 0 ? Double.NaN : histogram.getMaxValue() / 1000.0;
  }

  double meanMillis() {
    return count() == 0 ? Double.NaN : histogram.getMean() / 1000.0;
  }

  /** p50, p99, p99.9, max and mean in milliseconds, with the sample count, under {@code prefix}. */
  void into(Map<String, Object> metrics, String prefix) {
    metrics.put(prefix + "samples", count());
    metrics.put(prefix + "p50_ms", percentileMillis(50));
    metrics.put(prefix + "p99_ms", percentileMillis(99));
    metrics.put(prefix + "p999_ms", percentileMillis(99.9));
    metrics.put(prefix + "max_ms", maxMillis());
    metrics.put(prefix + "mean_ms", meanMillis());
    if (early.get() > 0) {
      metrics.put(prefix + "early", early.get());
      metrics.put(prefix + "earliest_ms", earliestMicros.get() / 1000.0);
    }
  }
}
