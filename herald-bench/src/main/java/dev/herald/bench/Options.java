package dev.herald.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Command-line settings of one bench run. Every one has a default; {@link #usage()} lists them. */
final class Options {
  static final List<String> ALL_CASES = List.of("burn-down", "lateness", "webhooks", "intake", "scale", "roof");
  /** Cases run only when named: they need something outside the JVM (nginx, the server jar) or start brokers. */
  static final List<String> EXTRA_CASES = List.of("webhooks-nginx", "server", "brokers", "mixed", "fan-out");

  List<String> cases = List.of("burn-down");
  List<String> dbs = List.of("h2");
  List<String> systems = List.of("herald", "db-scheduler");
  /** The HTTP clients of the webhook roof ({@link RoofTransports}); the first is the baseline of the ratios. */
  List<String> transports = List.of("jdk");
  Path out = defaultOut();
  Path tmp;
  int repeat = 1;
  boolean progress = true;
  long timeoutSeconds = 1800;
  int jitWarmup = 20_000;

  // burn-down and roof
  int n = 200_000;

  // lateness (and webhooks' stream)
  int rate = 1_000;
  double durationSeconds = 30;
  double warmupSeconds = 5;
  double delaySeconds = 2;
  int producers = 16;

  // intake
  double intakeSeconds = 10;
  int intakeProducers = 8;
  List<String> intakeVariants = List.of("batch100-future", "batch1000-future", "single-future", "batch100-due",
      "single-due", "jdbc-batch100", "jdbc-batch1000", "dbs-batch100", "dbs-batch1000");

  // fan-out: one event to this many endpoints, beside enqueueAll of the same rows (intake's duration and callers)
  int fanoutEndpoints = 100;

  // mixed: a stream in, the same stream out
  int mixedRate = 10_000;
  int mixedBatch = 10;
  double mixedSeconds = 60;

  // scale
  int scaleN = 5_000_000;
  int scaleDue = 20_000;
  int scaleRate = 500;
  double scaleSeconds = 20;
  long scaleIdleMillis = 3_000;

  // both systems
  int threads = 32;
  int pool = -1; // threads + 8

  // Herald settings (defaults are Herald's own, but maxConcurrentDeliveries = threads)
  /** Herald's maxConcurrentDeliveries when not --threads (-1); the brokers case sets it to brokerSlots. */
  int slots = -1;
  int claimBatch = 500;
  int writeBatch = 1_000;
  int maxHeld = 10_000;
  long pollMillis = 1_000;
  long lookAheadMillis = 5_000;

  // brokers
  /** Herald's delivery slots in the brokers case: a broker channel bounds its own messages in flight. */
  int brokerSlots = 1_000;
  /** The AMQP broker of the brokers case: qpid (in this JVM) or rabbitmq (Debian's rabbitmq-server, started here). */
  String amqpBroker = "qpid";
  /** linger.ms of herald-channel-kafka's producer and the Kafka roof's; -1: the channel's default (5). */
  int kafkaLingerMs = -1;

  // db-scheduler settings
  String dbsStrategy = "auto"; // auto = lock-and-fetch where db-scheduler supports it, else fetch
  double dbsLower = 0.5;
  double dbsUpper = -1; // 1.0 for lock-and-fetch, 3.0 for fetch: db-scheduler's defaults for each
  long dbsPollMillis = 100;

  // PostgreSQL
  String pgUrl;
  String pgUser = System.getProperty("user.name");
  String pgPassword = "";
  String pgSyncCommit = "on";
  String pgFsync = "on";
  /** Driver properties for every pool, Herald's and db-scheduler's alike; defaults to what Herald.Builder#jdbc sets. */
  Map<String, String> pgProps = new LinkedHashMap<>(Map.of("reWriteBatchedInserts", "true"));

  // profiling
  Path jfrDir;
  boolean wall;
  Path jfrSummary;
  int jfrTop = 25;

  static Path defaultOut() {
    Path module = Path.of("herald-bench");
    Path base = Files.isDirectory(module) ? module : Path.of(".");
    return base.resolve("results").resolve("results.jsonl");
  }

  /** A copy without profiling, for warm-up runs. */
  Options quiet() {
    Options q = copy();
    q.jfrDir = null;
    q.wall = false;
    return q;
  }

  /** A copy in which Herald has {@code n} delivery slots (maxConcurrentDeliveries). */
  Options withSlots(int n) {
    Options q = copy();
    q.slots = n;
    return q;
  }

  private Options copy() {
    Options q = parse();
    for (java.lang.reflect.Field f : Options.class.getDeclaredFields()) {
      if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
        continue;
      }
      try {
        f.set(q, f.get(this));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
    return q;
  }

  /** Herald's maxConcurrentDeliveries: {@code --threads} unless a case gave it its own. */
  int slots() {
    return slots > 0 ? slots : threads;
  }

  int pool() {
    return pool > 0 ? pool : threads + 8;
  }

  Duration delay() {
    return Duration.ofMillis(Math.round(delaySeconds * 1000));
  }

  static Options parse(String... args) {
    Options o = new Options();
    List<String> list = new ArrayList<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        list.add(a.substring(0, eq));
        list.add(a.substring(eq + 1));
      } else {
        list.add(a);
      }
    }
    for (int i = 0; i < list.size(); i++) {
      String key = list.get(i);
      if (key.equals("--help") || key.equals("-h")) {
        throw new UsageException(null);
      }
      if (key.equals("--no-progress")) {
        o.progress = false;
        continue;
      }
      if (key.equals("--wall")) {
        o.wall = true;
        continue;
      }
      if (key.equals("--no-baseline")) {
        o.systems = List.of("herald");
        continue;
      }
      if (!key.startsWith("--") || i + 1 >= list.size()) {
        throw new UsageException("expected --option value, got '" + key + "'");
      }
      String v = list.get(++i);
      try {
        o.set(key.substring(2), v);
      } catch (NumberFormatException e) {
        throw new UsageException(key + ": not a number: " + v);
      }
    }
    o.check();
    return o;
  }

  private void set(String key, String v) {
    switch (key) {
      case "case", "cases" -> cases = expandCases(split(v));
      case "db" -> dbs = split(v);
      case "systems" -> systems = v.equals("none") ? List.of() : split(v);
      case "transports" -> transports = v.equals("all") ? RoofTransports.ALL : split(v);
      case "out" -> out = Path.of(v);
      case "tmp" -> tmp = Path.of(v);
      case "repeat" -> repeat = Integer.parseInt(v);
      case "timeout" -> timeoutSeconds = Long.parseLong(v);
      case "jit-warmup" -> jitWarmup = count(v);
      case "n" -> n = count(v);
      case "rate" -> rate = count(v);
      case "duration" -> durationSeconds = Double.parseDouble(v);
      case "warmup" -> warmupSeconds = Double.parseDouble(v);
      case "delay" -> delaySeconds = Double.parseDouble(v);
      case "producers" -> producers = Integer.parseInt(v);
      case "intake-duration" -> intakeSeconds = Double.parseDouble(v);
      case "intake-producers" -> intakeProducers = Integer.parseInt(v);
      case "intake-variants" -> intakeVariants = split(v);
      case "fanout-endpoints" -> fanoutEndpoints = Integer.parseInt(v);
      case "mixed-rate" -> mixedRate = count(v);
      case "mixed-batch" -> mixedBatch = Integer.parseInt(v);
      case "mixed-duration" -> mixedSeconds = Double.parseDouble(v);
      case "scale-n" -> scaleN = count(v);
      case "scale-due" -> scaleDue = count(v);
      case "scale-rate" -> scaleRate = count(v);
      case "scale-duration" -> scaleSeconds = Double.parseDouble(v);
      case "scale-idle-ms" -> scaleIdleMillis = Long.parseLong(v);
      case "threads" -> threads = Integer.parseInt(v);
      case "broker-slots" -> brokerSlots = Integer.parseInt(v);
      case "amqp-broker" -> amqpBroker = v;
      case "kafka-linger-ms" -> kafkaLingerMs = Integer.parseInt(v);
      case "pool" -> pool = Integer.parseInt(v);
      case "claim-batch" -> claimBatch = Integer.parseInt(v);
      case "write-batch" -> writeBatch = Integer.parseInt(v);
      case "max-held" -> maxHeld = Integer.parseInt(v);
      case "poll-ms" -> pollMillis = Long.parseLong(v);
      case "look-ahead-ms" -> lookAheadMillis = Long.parseLong(v);
      case "dbs-strategy" -> dbsStrategy = v;
      case "dbs-lower" -> dbsLower = Double.parseDouble(v);
      case "dbs-upper" -> dbsUpper = Double.parseDouble(v);
      case "dbs-poll-ms" -> dbsPollMillis = Long.parseLong(v);
      case "pg-url" -> pgUrl = v;
      case "pg-user" -> pgUser = v;
      case "pg-password" -> pgPassword = v;
      case "pg-sync-commit" -> pgSyncCommit = v;
      case "pg-fsync" -> pgFsync = v;
      case "pg-props" -> {
        for (String kv : v.split(",")) {
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new UsageException("--pg-props: key=value[,key=value...], got '" + kv + "'");
          }
          pgProps.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
      }
      case "jfr" -> jfrDir = Path.of(v);
      case "jfr-summary" -> jfrSummary = Path.of(v);
      case "jfr-top" -> jfrTop = Integer.parseInt(v);
      default -> throw new UsageException("unknown option --" + key);
    }
  }

  private void check() {
    for (String c : cases) {
      if (!ALL_CASES.contains(c) && !EXTRA_CASES.contains(c)) {
        throw new UsageException("unknown case '" + c + "'; one of " + ALL_CASES + ", " + EXTRA_CASES + " or all");
      }
    }
    for (String d : dbs) {
      if (!d.equals("h2") && !d.equals("postgres")) {
        throw new UsageException("unknown --db '" + d + "'; h2 or postgres");
      }
    }
    if (!amqpBroker.equals("qpid") && !amqpBroker.equals("rabbitmq")) {
      throw new UsageException("--amqp-broker: qpid or rabbitmq, got '" + amqpBroker + "'");
    }
    if (brokerSlots <= 0) {
      throw new UsageException("--broker-slots must be positive");
    }
    for (String s : systems) {
      if (!s.equals("herald") && !s.equals("db-scheduler")) {
        throw new UsageException("unknown system '" + s + "'; herald or db-scheduler");
      }
    }
    for (String t : transports) {
      if (!RoofTransports.ALL.contains(t)) {
        throw new UsageException("unknown transport '" + t + "'; one of " + RoofTransports.ALL + " or all");
      }
    }
    if (mixedRate <= 0 || mixedBatch <= 0 || mixedSeconds <= 0 || mixedRate % mixedBatch != 0) {
      throw new UsageException("--mixed-rate, --mixed-batch and --mixed-duration must be positive, and the rate a"
          + " multiple of the batch");
    }
    if (!List.of("auto", "lock-and-fetch", "fetch").contains(dbsStrategy)) {
      throw new UsageException("--dbs-strategy: auto, lock-and-fetch or fetch");
    }
    if (n <= 0 || rate <= 0 || durationSeconds <= 0 || threads <= 0 || repeat <= 0 || producers <= 0) {
      throw new UsageException("--n, --rate, --duration, --threads, --producers and --repeat must be positive");
    }
  }

  private static List<String> expandCases(List<String> given) {
    List<String> out = new ArrayList<>();
    for (String c : given) {
      if (c.equals("all")) {
        out.addAll(ALL_CASES);
      } else {
        out.add(c);
      }
    }
    return out;
  }

  private static List<String> split(String v) {
    List<String> out = new ArrayList<>();
    for (String p : v.split(",")) {
      if (!p.isBlank()) {
        out.add(p.trim().toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  /** A count, with an optional k or m suffix: 200k, 5m. */
  static int count(String v) {
    String t = v.trim().toLowerCase(Locale.ROOT).replace("_", "");
    long mult = 1;
    if (t.endsWith("k")) {
      mult = 1_000;
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("m")) {
      mult = 1_000_000;
      t = t.substring(0, t.length() - 1);
    }
    return Math.toIntExact(Long.parseLong(t) * mult);
  }

  /** The settings common to every result line. */
  Map<String, Object> common() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("threads", threads);
    m.put("pool", pool());
    return m;
  }

  static String usage() {
    return """
        Herald benchmarks: Herald against db-scheduler on the same database.

        java -jar herald-bench/target/herald-bench.jar [options]

          --case C[,C...]      burn-down | lateness | webhooks | intake | scale | roof | all   (burn-down)
                           by name only: webhooks-nginx (needs nginx), server (needs herald-server.jar)
                           brokers (AMQP and Kafka brokers in the JVM), mixed (60 s of a 10k/s stream),
                           fan-out (1 event to 100 endpoints beside enqueueAll of the same rows)
          --db D[,D...]        h2 | postgres                                                   (h2)
          --systems S[,S...]   herald,db-scheduler; --no-baseline = herald only; none          (both)
          --transports T,...   webhooks-nginx roof clients: jdk,jdk-tuned,jetty,apache,netty or all (jdk)
          --out FILE           results file, one JSON line per result   (herald-bench/results/results.jsonl)
          --repeat K           run each measurement K times; tables show every run, ratios the best (1)
          --timeout S          give up on one measurement after S seconds                       (1800)
          --jit-warmup N       before burn-down, roof, scale: an unrecorded run of N per system (20k; 0 = none);
                               before intake: 2 s of each system unrecorded (0 = none)
          --no-progress        no progress lines on long runs

          burn-down / roof:    --n 200k
          lateness:            --rate 1000 (notices/s)  --duration 30 (s, measured)  --warmup 5 (s, not measured)
                               --delay 2 (s, fire time after creation)  --producers 16 (threads creating)
          intake:              --intake-duration 10  --intake-producers 8
                               --intake-variants batch100-future,batch1000-future,single-future,batch100-due,
                                 single-due,jdbc-batch100,jdbc-batch1000,dbs-batch100,dbs-batch1000
          scale:               --scale-n 5m (future rows)  --scale-due 20k (burn-down beside them)
                               --scale-rate 500 --scale-duration 20 (due stream beside them)
                               --scale-idle-ms 3000 (engine started and idle before the heap is measured)
          fan-out:             --fanout-endpoints 100 (and --intake-duration, --intake-producers)
          mixed:               --mixed-rate 10000 (notices/s) --mixed-batch 10 (per caller transaction)
                               --mixed-duration 60 (s); each due --delay s after creation, --producers threads

          brokers:             --broker-slots 1000 (Herald's maxConcurrentDeliveries in this case)
                               --amqp-broker qpid|rabbitmq (Qpid Broker-J in this JVM, or Debian's
                               rabbitmq-server started on loopback by the bench)                (qpid)
                               --kafka-linger-ms N (the Kafka producers' linger.ms; the channel's default 5)

          both systems:        --threads 32 (Herald maxConcurrentDeliveries = db-scheduler threads)
                               --pool 40 (connections; default threads + 8)
          Herald:              --claim-batch 500 --write-batch 1000 --max-held 10000 --poll-ms 1000 --look-ahead-ms 5000
          db-scheduler:        --dbs-strategy auto|lock-and-fetch|fetch (auto: lock-and-fetch where supported, i.e.
                               not on H2)  --dbs-lower 0.5 --dbs-upper 1.0 (3.0 for fetch)  --dbs-poll-ms 100
          PostgreSQL:          --pg-url jdbc:postgresql://host/db --pg-user U --pg-password P
                               (default: an embedded PostgreSQL in a temp dir, durable like a production
                               server: --pg-sync-commit on --pg-fsync on; zonky's own defaults turn both off)
                               --pg-props k=v,...  driver properties for every pool (reWriteBatchedInserts=true)
          profiling:           --jfr DIR  (a JFR recording per measured run)
                               --wall  (wall-clock stack samples of the engine threads, printed after each run)
                               --jfr-summary FILE.jfr [--jfr-top 25]  (print hot methods of a recording and exit)
          --tmp DIR            where H2 files and the embedded PostgreSQL live (a new temp dir)
        """;
  }

  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
