package dev.herald.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measurement: which case, which system on which database, what came out (metrics) and under
 * which settings. {@code ok} is false when the measurement did not complete (timeout, error); its
 * metrics then hold what was reached.
 */
record Result(String caseName, String system, String variant, String db, boolean ok, String error,
    Map<String, Object> metrics, Map<String, Object> settings) {

  static Builder of(String caseName, String system, String variant, String db) {
    return new Builder(caseName, system, variant, db);
  }

  double metric(String name) {
    Object v = metrics.get(name);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  static final class Builder {
    private final String caseName;
    private final String system;
    private final String variant;
    private final String db;
    private final Map<String, Object> metrics = new LinkedHashMap<>();
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private boolean ok = true;
    private String error;

    private Builder(String caseName, String system, String variant, String db) {
      this.caseName = caseName;
      this.system = system;
      this.variant = variant;
      this.db = db;
    }

    Builder metric(String name, Object value) {
      metrics.put(name, value);
      return this;
    }

    /** The metrics so far, to add to in place. */
    Map<String, Object> metricsView() {
      return metrics;
    }

    Builder setting(String name, Object value) {
      settings.put(name, value);
      return this;
    }

    Builder settings(Map<String, Object> all) {
      settings.putAll(all);
      return this;
    }

    Builder failed(String why) {
      ok = false;
      error = why;
      return this;
    }

    Result build() {
      return new Result(caseName, system, variant, db, ok, error, metrics, settings);
    }
  }
}
