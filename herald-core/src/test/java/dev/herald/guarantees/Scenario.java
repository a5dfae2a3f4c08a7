package dev.herald.guarantees;

import dev.herald.NoticeDefinition;
import dev.herald.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * What a guarantees run does, derived from one seed: which notices are enqueued when, where and
 * how; which operator calls race them; which node is killed and restarted; and how each handler
 * call behaves (a pure function of seed, notice and attempt number, so it does not depend on which
 * node or thread runs it).
 */
final class Scenario {
  static final int NODES = 3;

  /** How a definition's handler behaves, which decides the final states it implies. */
  enum Kind {
    /** Always delivers. */
    STEADY,
    /** Sometimes retries, fails for good, or throws. */
    FAILING,
    /** Delivers, and the receiver confirms later, during the attempt, or not at all. */
    CONFIRM
  }

  record Definition(String name, Kind kind, NoticeDefinition definition) {}

  static final List<Definition> DEFINITIONS = List.of(
      new Definition("steady", Kind.STEADY,
          NoticeDefinition.builder("steady").handler("steady").retry("200ms").maxAttempts(5).build()),
      new Definition("flaky", Kind.FAILING,
          NoticeDefinition.builder("flaky").handler("flaky").retry("200ms, 500ms").maxAttempts(3).build()),
      new Definition("brittle", Kind.FAILING,
          NoticeDefinition.builder("brittle").handler("brittle").retry("200ms").maxAttempts(1).build()),
      // Ordered per key, passing over a DEAD head so that every key settles.
      new Definition("sequenced", Kind.FAILING,
          NoticeDefinition.builder("sequenced").handler("sequenced").retry("200ms").maxAttempts(3)
              .ordered(Ordering.SKIP).build()),
      new Definition("confirm", Kind.CONFIRM,
          NoticeDefinition.builder("confirm").handler("confirm").retry("300ms").maxAttempts(4)
              .confirmWithin(Duration.ofSeconds(1)).build()));

  static Definition definition(String name) {
    return DEFINITIONS.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }

  /** How the notices of one enqueue action are written. */
  enum Mode {
    /** {@code herald.enqueue(request)}: Herald's own transaction, fired from memory after commit. */
    OWN,
    /** {@code herald.inTransaction(tx -> tx.enqueueAll(...))}, several at once. */
    TRANSACTION,
    /** {@code herald.enqueue(connection, request)} in the caller's transaction: found by the poll. */
    CONNECTION
  }

  enum Op { CANCEL, EDIT, RESEND, CONFIRM }

  /** One notice to enqueue: number {@code n}, due {@code delayMs} after its enqueue. */
  record Planned(int n, String definition, long delayMs) {}

  /** Something done at {@code atMs} after the start, through node slot {@code slot} (another if that one is down). */
  sealed interface Action permits Enqueue, Operate, Kill, Restart, Inject, Pause, ClockStep {
    long atMs();
  }

  /**
   * The faults a fault schedule injects, the way production produces them (see {@link
   * dev.herald.faults.FaultyDataSource}); each within the documented budgets (a heartbeat lands within
   * a third of the node timeout, clocks stay within a quarter of it of each other).
   */
  enum FaultKind {
    /** The pool has no connection for a thread, a few times. */
    POOL_TIMEOUT,
    /** Connections take a while to come. */
    SLOW_CONNECTION,
    /** A commit lands and its answer is lost. */
    LOST_COMMIT,
    /** A statement fails mid-transaction (the transaction rolls back). */
    FAILED_STATEMENT,
    /** An operator's change and the release undoing its taking both fail. */
    OPERATOR_HALF_WAY,
    /** A heartbeat lands at once but answers after the fence. */
    LATE_HEARTBEAT,
    /** A heartbeat lands late, within the budget. */
    SLOW_HEARTBEAT,
    /** The node's wall clock steps, within the skew budget. */
    CLOCK_STEP,
    /** Every database call of the node stalls for seconds (a process pause, as the database sees it). */
    PAUSE
  }

  /** A fault injected into node slot {@code slot}'s data source: on threads named {@code thread}*, {@code times} times. */
  record Inject(long atMs, int slot, FaultKind kind, String thread, String sql, int times, long millis)
      implements Action {}

  /** Every database call of the node in {@code slot} stalls for {@code millis}. */
  record Pause(long atMs, int slot, long millis) implements Action {}

  /** The wall clock of the node in {@code slot} is set {@code offsetMs} away from the system's. */
  record ClockStep(long atMs, int slot, long offsetMs) implements Action {}

  record Enqueue(long atMs, int slot, Mode mode, List<Planned> notices) implements Action {}

  /** An operator call on notice {@code n}; {@code version} is the payload version an EDIT writes. */
  record Operate(long atMs, int slot, Op op, int n, int version) implements Action {}

  record Kill(long atMs, int slot) implements Action {}

  record Restart(long atMs, int slot) implements Action {}

  enum Result { DELIVER, RETRY, FAIL, THROW }

  enum Confirmation { NONE, DURING, AFTER }

  /** One handler call: how long it takes, what it returns, and whether and when the receiver confirms. */
  record Behaviour(long latencyMs, Result result, Confirmation confirmation, long confirmDelayMs) {}

  final long seed;
  final int notices;
  final int seconds;
  /** Faults injected per second, across the nodes; 0 for none. */
  final double faultRate;
  /** The kinds of fault the schedule may inject (all by default; a subset to narrow a failure down). */
  final java.util.Set<FaultKind> kinds;
  final List<Action> actions;

  Scenario(long seed, int notices, int seconds) {
    this(seed, notices, seconds, 0);
  }

  Scenario(long seed, int notices, int seconds, double faultRate) {
    this(seed, notices, seconds, faultRate, java.util.EnumSet.allOf(FaultKind.class));
  }

  Scenario(long seed, int notices, int seconds, double faultRate, java.util.Set<FaultKind> kinds) {
    this.seed = seed;
    this.notices = notices;
    this.seconds = seconds;
    this.faultRate = faultRate;
    this.kinds = java.util.Set.copyOf(kinds);
    List<Action> all = new ArrayList<>(plan(new Random(seed)));
    // Faults from a stream of their own: the same seed plans the same work with or without them.
    all.addAll(faults(new Random(seed ^ 0x6A09E667F3BCC909L)));
    all.sort(Comparator.comparingLong(Action::atMs));
    this.actions = List.copyOf(all);
  }

  /**
   * Reads {@code herald.guarantees.seed}, {@code .notices}, {@code .seconds} and {@code .faults}
   * (faults per second; default 4, 0 for none) and {@code .faultKinds} (a comma-separated subset of
   * {@link FaultKind}, to narrow a failure down; the schedule's times stay those of the full one).
   */
  static Scenario fromSystemProperties() {
    String kinds = System.getProperty("herald.guarantees.faultKinds", "");
    return new Scenario(
        Long.getLong("herald.guarantees.seed", 20_240_611L),
        Integer.getInteger("herald.guarantees.notices", 2_000),
        Integer.getInteger("herald.guarantees.seconds", 12),
        Double.parseDouble(System.getProperty("herald.guarantees.faults", "4")),
        kinds.isBlank() ? java.util.EnumSet.allOf(FaultKind.class)
            : java.util.Arrays.stream(kinds.split(",")).map(k -> FaultKind.valueOf(k.strip())).collect(
                java.util.stream.Collectors.toCollection(() -> java.util.EnumSet.noneOf(FaultKind.class))));
  }

  /** Engine threads and callers, by the prefix of their names. */
  private static final List<String> DB_THREADS = List.of("herald-poller", "herald-writer", "herald-heartbeat",
      "herald-housekeeping", "caller", "operator");

  /**
   * The fault schedule: {@link #faultRate} faults a second over the first 80 % of the run (the rest
   * and the quiescence after it are fault-free, so that what the faults left must settle), plus one
   * pause of a node that is not the one killed first.
   */
  private List<Action> faults(Random r) {
    List<Action> out = new ArrayList<>();
    if (faultRate <= 0) {
      return out;
    }
    long window = seconds * 800L;
    int count = (int) Math.round(faultRate * seconds * 0.8);
    for (int i = 0; i < count; i++) {
      long at = r.nextLong(window);
      int slot = r.nextInt(NODES);
      FaultKind kind = FaultKind.values()[r.nextInt(FaultKind.values().length - 1)]; // PAUSE once, below
      if (!kinds.contains(kind)) {
        continue;
      }
      out.add(switch (kind) {
        case POOL_TIMEOUT -> new Inject(at, slot, kind, pick(r, DB_THREADS), "", 1 + r.nextInt(3), 0);
        case SLOW_CONNECTION -> new Inject(at, slot, kind, pick(r, DB_THREADS), "", 1 + r.nextInt(4),
            50 + r.nextLong(200));
        case LOST_COMMIT -> new Inject(at, slot, kind,
            pick(r, List.of("herald-poller", "herald-writer", "herald-heartbeat", "caller", "operator")), "", 1, 0);
        case FAILED_STATEMENT -> r.nextBoolean()
            ? new Inject(at, slot, kind, "herald-writer", pick(r, List.of("herald_attempt", "herald_notice")), 1, 0)
            : new Inject(at, slot, kind, "herald-poller", "herald_notice", 1, 0);
        case OPERATOR_HALF_WAY -> new Inject(at, slot, kind, "operator", "herald_notice", 2, 0);
        case LATE_HEARTBEAT -> new Inject(at, slot, kind, "herald-heartbeat", "UPDATE herald_node", 1,
            1_100 + r.nextLong(300));
        case SLOW_HEARTBEAT -> new Inject(at, slot, kind, "herald-heartbeat", "UPDATE herald_node", 1,
            150 + r.nextLong(450));
        case CLOCK_STEP -> new ClockStep(at, slot, r.nextLong(301) - 150);
        case PAUSE -> throw new AssertionError("unreachable");
      });
    }
    Pause pause = new Pause(window / 4 + r.nextLong(window / 2), r.nextInt(NODES), 2_500 + r.nextLong(1_500));
    if (kinds.contains(FaultKind.PAUSE)) {
      out.add(pause);
    }
    return out;
  }

  private static String pick(Random r, List<String> from) {
    return from.get(r.nextInt(from.size()));
  }

  private List<Action> plan(Random r) {
    long span = seconds * 1_000L;
    long enqueueWindow = span * 6 / 10;
    List<Action> out = new ArrayList<>();
    int[] versions = new int[notices];
    int n = 0;
    while (n < notices) {
      long at = r.nextLong(enqueueWindow);
      int slot = r.nextInt(NODES);
      double pick = r.nextDouble();
      Mode mode;
      int size;
      boolean burst = false;
      if (pick < 0.45) {
        mode = Mode.OWN;
        size = 1;
      } else if (pick < 0.80) {
        mode = Mode.TRANSACTION;
        size = 1 + r.nextInt(5);
      } else if (pick < 0.90) {
        mode = Mode.TRANSACTION; // a burst: many notices due at the same instant, more than the delivery slots
        size = 20 + r.nextInt(41);
        burst = true;
      } else {
        mode = Mode.CONNECTION;
        size = 1 + r.nextInt(3);
      }
      long burstDelay = r.nextLong(span * 4 / 10);
      List<Planned> group = new ArrayList<>();
      for (int i = 0; i < size && n < notices; i++, n++) {
        String definition = burst ? (r.nextBoolean() ? "steady" : "flaky") : pickDefinition(r);
        long delay = burst ? burstDelay : r.nextDouble() < 0.35 ? 0 : r.nextLong(span * 4 / 10);
        group.add(new Planned(n, definition, delay));
        long fire = at + delay;
        operatorCalls(r, n, definition, at, fire, versions, out);
      }
      out.add(new Enqueue(at, slot, mode, List.copyOf(group)));
    }
    // One kill per 15 s (at least one), each node back 2.5 to 4 s later, one node down at a time.
    int kills = Math.max(1, seconds / 15);
    long segment = span / kills;
    for (int i = 0; i < kills; i++) {
      int victim = r.nextInt(NODES);
      long killAt = segment * i + segment * 3 / 10 + r.nextLong(segment * 2 / 10);
      out.add(new Kill(killAt, victim));
      out.add(new Restart(killAt + 2_500 + r.nextLong(1_500), victim));
    }
    out.sort(Comparator.comparingLong(Action::atMs));
    return List.copyOf(out);
  }

  private static String pickDefinition(Random r) {
    double p = r.nextDouble();
    return p < 0.33 ? "steady" : p < 0.60 ? "flaky" : p < 0.69 ? "brittle" : p < 0.75 ? "sequenced" : "confirm";
  }

  /** Operator calls on one notice, timed to race its deliveries (around its fire time). */
  private static void operatorCalls(Random r, int n, String definition, long enqueuedAt, long fire, int[] versions,
      List<Action> out) {
    if (r.nextDouble() < 0.07) {
      out.add(new Operate(around(r, enqueuedAt, fire, -800, 1_500), r.nextInt(NODES), Op.CANCEL, n, 0));
    }
    int edits = r.nextDouble() < 0.10 ? 1 + r.nextInt(2) : 0;
    for (int i = 0; i < edits; i++) {
      out.add(new Operate(around(r, enqueuedAt, fire, -800, 800), r.nextInt(NODES), Op.EDIT, n, ++versions[n]));
    }
    if (r.nextDouble() < 0.05) {
      out.add(new Operate(around(r, enqueuedAt, fire, 0, 3_000), r.nextInt(NODES), Op.RESEND, n, 0));
    }
    if (r.nextDouble() < (definition.equals("confirm") ? 0.20 : 0.02)) {
      out.add(new Operate(around(r, enqueuedAt, fire, 0, 2_500), r.nextInt(NODES), Op.CONFIRM, n, 0));
    }
  }

  /** A time in [fire + from, fire + to), not before the enqueue. */
  private static long around(Random r, long enqueuedAt, long fire, long from, long to) {
    return Math.max(enqueuedAt + 20, fire + from + r.nextLong(to - from));
  }

  /** How the handler call for attempt {@code attempt} of notice {@code n} behaves; the same on every run of the seed. */
  Behaviour behaviour(String definition, int n, int attempt) {
    SplittableRandom r = new SplittableRandom((seed * 0x9E3779B97F4A7C15L + n) * 0xBF58476D1CE4E5B9L + attempt);
    long latency = r.nextDouble() < 0.05 ? 300 : r.nextLong(51);
    double p = r.nextDouble();
    return switch (definition(definition).kind()) {
      case STEADY -> new Behaviour(latency, Result.DELIVER, Confirmation.NONE, 0);
      case FAILING -> new Behaviour(latency,
          p < 0.65 ? Result.DELIVER : p < 0.85 ? Result.RETRY : p < 0.92 ? Result.FAIL : Result.THROW,
          Confirmation.NONE, 0);
      case CONFIRM -> {
        // The receiver always confirms by the third attempt, so every confirm notice settles.
        double never = attempt == 1 ? 0.40 : attempt == 2 ? 0.20 : 0;
        double during = attempt <= 2 ? 0.25 : 0;
        Confirmation c = p < never ? Confirmation.NONE : p < never + during ? Confirmation.DURING : Confirmation.AFTER;
        yield new Behaviour(latency, Result.DELIVER, c, 20 + r.nextLong(181));
      }
    };
  }

  /** The ordering key of notice {@code n} of an ordered definition: a few keys, so that lines form. */
  static String orderingKey(int n) {
    return "key-" + n % 8;
  }

  static String payload(int n, int version) {
    return "{\"n\":" + n + ",\"v\":" + version + "}";
  }

  /** The notice number and payload version of a payload written by {@link #payload}. */
  static int[] parsePayload(String json) {
    int n = json.indexOf("\"n\":");
    int v = json.indexOf(",\"v\":");
    return new int[] {
        Integer.parseInt(json.substring(n + 4, v)), Integer.parseInt(json.substring(v + 5, json.indexOf('}')))};
  }
}
