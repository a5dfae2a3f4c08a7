package dev.herald;

import dev.herald.schedule.DurationText;
import java.time.Duration;
import java.util.Collection;

/**
 * Every engine setting, declared once: its name (the {@link Herald.Builder} method, the Spring Boot
 * property {@code herald.<property()>}), its type, default, range and what it does. {@link
 * EngineSettings} checks each value here; the starter's properties and metadata and the READMEs'
 * tables are checked against this list by tests, so that none drifts.
 */
public enum EngineSetting {
  NODE_ID("nodeId", "nodeId", Kind.NAME, "host name and process id (\"embedded\" on Herald's own H2 files)", 1, 200,
      "this node's name; unique per running instance. A node restarted with the same id takes back what it held at once"),
  POLL_INTERVAL("pollInterval", "pollInterval", Kind.DURATION, "1s", 0, 0,
      "how often to look for due notices this node was not told about"),
  LOOK_AHEAD("lookAhead", "lookAhead", Kind.DURATION, "5s", 0, 0,
      "claim notices due this far ahead and fire them from memory on time"),
  NODE_TIMEOUT("nodeTimeout", "nodeTimeout", Kind.DURATION, "2s", 200, 0,
      "a node silent this long is dead: other nodes take over its notices; it beats every quarter of this"),
  CLAIM_BATCH("claimBatch", "claimBatch", Kind.COUNT, "500", 1, Integer.MAX_VALUE, "most notices per claim query"),
  MAX_HELD("maxHeld", "maxHeld", Kind.COUNT, "10000", 1, Integer.MAX_VALUE,
      "most notices held in memory at once (flow control)"),
  MAX_CONCURRENT_DELIVERIES("maxConcurrentDeliveries", "maxConcurrentDeliveries", Kind.COUNT, "1024", 1,
      Integer.MAX_VALUE, "most delivery attempts running at once on this node"),
  MAX_CONCURRENT_PER_RECEIVER("maxConcurrentPerReceiver", "maxConcurrentPerReceiver", Kind.COUNT, "64", 1,
      Integer.MAX_VALUE, "most attempts running at once to one receiver whose channel sets no limit of its own (a handler)"),
  DELIVERY_TIMEOUT("deliveryTimeout", "deliveryTimeout", Kind.DURATION, "5m", 0, 0,
      "an attempt still running after this counts as failed"),
  WRITE_BATCH("writeBatch", "writeBatch", Kind.COUNT, "1000", 1, Integer.MAX_VALUE,
      "most outcomes recorded per database transaction (group commit)"),
  SHUTDOWN_TIMEOUT("shutdownTimeout", "shutdownTimeout", Kind.DURATION, "30s", 0, 0,
      "how long stopping waits for running attempts"),
  HISTORY_RETENTION("historyRetention", "historyRetention", Kind.DURATION, "30d", 0, 0,
      "finished notices older than this are purged from history"),
  HOUSEKEEPING_INTERVAL("housekeepingInterval", "housekeepingInterval", Kind.DURATION, "10m", 0, 0,
      "how often history is purged and definitions are reloaded"),
  MAX_PAYLOAD_BYTES("maxPayloadBytes", "maxPayloadBytes", Kind.COUNT, "1048576", 1, Integer.MAX_VALUE,
      "largest payload accepted, in UTF-8 bytes"),
  CIRCUIT_FAILURE_THRESHOLD("circuitFailureThreshold", "circuitFailureThreshold", Kind.COUNT, "5", 1,
      Integer.MAX_VALUE, "sync-first delivery: consecutive failed attempts after which a receiver's circuit opens"),
  CIRCUIT_OPEN_FOR("circuitOpenFor", "circuitOpenFor", Kind.DURATION, "30s", 0, 0,
      "sync-first delivery: how long an open circuit defers before probing again"),
  CIRCUIT_SLOW_CALL_DURATION("circuitSlowCallDuration", "circuitSlowCalls.threshold", Kind.DURATION_OR_OFF, "10s", 0, 0,
      "sync-first delivery: an attempt this long or longer is slow; 0 turns slow calls off"),
  CIRCUIT_SLOW_CALL_RATE("circuitSlowCallRate", "circuitSlowCalls.rate", Kind.SHARE, "0.5", 0, 0,
      "sync-first delivery: the share of a receiver's latest 20 attempts (at least 10) that, slow, opens its circuit"),
  ONLY_DEFINITIONS("onlyDefinitions", "definitions", Kind.NAMES, "all", 0, 0,
      "node affinity: this node delivers only these definitions"),
  ONLY_SHARDS("onlyShards", "shards", Kind.SHARDS, "all", 0, dev.herald.spi.Shards.COUNT - 1,
      "node affinity: this node delivers only notices in these shards"),
  MAX_BACKLOG("maxBacklog", "maxBacklog", Kind.COUNT, "0", 0, Integer.MAX_VALUE,
      "flow control: publishing is refused (BackPressureException) while more notices are due and undelivered; 0 for no limit");

  /** What a setting's value is. */
  public enum Kind {
    /** A positive {@link Duration} of at most ten years (at least {@code min} ms). */
    DURATION,
    /** A {@link Duration}: zero (off), or positive of at most ten years. */
    DURATION_OR_OFF,
    /** A whole number ({@code int}) from {@code min} to {@code max}. */
    COUNT,
    /** A share ({@code double}) above 0 and at most 1. */
    SHARE,
    /** A name of {@code min} to {@code max} characters. */
    NAME,
    /** A set of definition names; empty for all. */
    NAMES,
    /** A set of shard numbers from 0 to {@code max}; empty for all. */
    SHARDS
  }

  /** The longest duration accepted: ten years (the engine adds settings to instants stored as epoch millis). */
  public static final Duration LONGEST = Duration.ofDays(3650);

  private final String name;
  private final String path;
  private final Kind kind;
  private final String defaultText;
  private final long min;
  private final long max;
  private final String doc;

  EngineSetting(String name, String path, Kind kind, String defaultText, long min, long max, String doc) {
    this.name = name;
    this.path = path;
    this.kind = kind;
    this.defaultText = defaultText;
    this.min = min;
    this.max = max;
    this.doc = doc;
  }

  /** The setting's name in Java: {@code lookAhead}. */
  public String settingName() {
    return name;
  }

  /** Its name as a property, after {@code herald.}: {@code look-ahead}. */
  public String property() {
    StringBuilder out = new StringBuilder();
    for (char c : name.toCharArray()) {
      out.append(Character.isUpperCase(c) ? "-" + Character.toLowerCase(c) : String.valueOf(c));
    }
    return out.toString();
  }

  /** The field path of errors about it ({@link InvalidInputException#field()}): {@code circuitSlowCalls.rate}. */
  public String path() {
    return path;
  }

  public Kind kind() {
    return kind;
  }

  /** The default, as a property writes it: {@code 5s}, {@code 500}, or words where it depends. */
  public String defaultText() {
    return defaultText;
  }

  /** The values accepted, in words: {@code positive, at most 3650d}, {@code >= 1}. */
  public String range() {
    return switch (kind) {
      case DURATION -> (min > 0 ? "at least " + min + "ms" : "positive") + ", at most " + LONGEST.toDays() + "d";
      case DURATION_OR_OFF -> "0 (off) or positive, at most " + LONGEST.toDays() + "d";
      case COUNT -> ">= " + min;
      case SHARE -> "above 0, at most 1";
      case NAME -> min + " to " + max + " characters";
      case NAMES -> "definition names";
      case SHARDS -> "shards 0 to " + max;
    };
  }

  /** What it does. */
  public String doc() {
    return doc;
  }

  /** The setting named {@code path} in an error, if one is. */
  public static java.util.Optional<EngineSetting> ofPath(String path) {
    for (EngineSetting s : values()) {
      if (s.path.equals(path)) {
        return java.util.Optional.of(s);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * Checks a value of this setting.
   *
   * @throws InvalidSettingException naming this setting and saying why
   */
  public void check(Object value) {
    switch (kind) {
      case DURATION, DURATION_OR_OFF -> {
        Duration d = (Duration) value;
        boolean off = kind == Kind.DURATION_OR_OFF && d != null && d.isZero();
        if (d == null || d.isNegative() || d.isZero() && !off) {
          throw refused((kind == Kind.DURATION_OR_OFF ? "must be zero (off) or positive" : "must be a positive duration")
              + ", was " + shown(d));
        }
        if (d.compareTo(LONGEST) > 0) {
          throw refused("must be at most " + LONGEST.toDays() + " days, was " + shown(d));
        }
        if (!off && d.toMillis() < min) {
          throw refused("must be at least " + min + " ms, was " + d.toMillis() + " ms");
        }
      }
      case COUNT -> {
        long n = ((Number) value).longValue();
        if (n < min || n > max) {
          throw refused(min == 0 ? "must be >= 0 (0 for no limit), was " + n : "must be >= " + min + ", was " + n);
        }
      }
      case SHARE -> {
        double r = ((Number) value).doubleValue();
        if (!(r > 0 && r <= 1)) {
          throw refused("must be above 0 and at most 1, was " + r);
        }
      }
      case NAME -> {
        String s = (String) value;
        if (s == null || s.isBlank() || s.length() > max) {
          throw refused("must be " + min + " to " + max + " characters");
        }
      }
      case NAMES -> {
        if (value == null) {
          throw refused("must be a set of definition names (empty for all)");
        }
      }
      case SHARDS -> {
        if (value == null) {
          throw refused("must be a set of shards (empty for all)");
        }
        for (Object o : (Collection<?>) value) {
          int s = ((Number) o).intValue();
          if (s < 0 || s > max) {
            throw refused("shard " + s + " is outside 0.." + max);
          }
        }
      }
    }
  }

  private InvalidSettingException refused(String reason) {
    return new InvalidSettingException(this, reason);
  }

  /** A duration as properties and the builder's docs write it ({@code 500ms}, {@code 5s}); ISO-8601 when it has no such form. */
  static String shown(Duration d) {
    if (d == null) {
      return "null";
    }
    try {
      return DurationText.format(d);
    } catch (IllegalArgumentException e) {
      return d.toString();
    }
  }
}
