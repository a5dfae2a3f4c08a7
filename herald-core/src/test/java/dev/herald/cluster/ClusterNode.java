package dev.herald.cluster;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.StoreException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One Herald node in a JVM of its own, for the cluster tests: it may be killed with SIGKILL, or see
 * its database go away. Arguments are {@code key=value}:
 *
 * <ul>
 *   <li>{@code url}, {@code user}, {@code password}, {@code initSql}: the database, reached through
 *       {@link Herald.Builder#jdbc} (Herald's own Hikari pool); initSql sets a non-UTC session zone
 *   <li>{@code node}: the node id; {@code log}: the deliveries log; {@code stop}: a file whose
 *       appearance asks the node to close and exit
 *   <li>{@code nodeTimeout} (ms; Herald's default, 2 s, if absent): how long this node may go without
 *       a heartbeat before the others take over its notices; it beats every quarter of it
 *   <li>{@code lookAhead} (ms, default 2000), {@code delay} (handler, ms), {@code concurrency},
 *       {@code maxHeld}, {@code claimBatch}, {@code pace} (ms between enqueued batches)
 *   <li>{@code from}, {@code to}: enqueue notices {@code {"n":i}} for i in [from, to), in
 *       transactions of {@value #BATCH}, each with idempotency key {@code n-i}, so a batch whose commit
 *       failed (the database went away) is simply enqueued again
 *   <li>{@code fireIn} ({@code min-max}, ms; default: due at once): the enqueued notices are due this
 *       long after they are enqueued, spread evenly from min (the first) to max (the last)
 * </ul>
 *
 * <p>The handler appends {@code <n> <node> <epoch ms> <epoch ms the handler was entered>} to the log
 * per delivery (not forced: a killed process's writes survive in the page cache). Prints {@code
 * STARTED}, {@code ACKED <i>} after each committed batch, {@code ENQUEUE-FAILED} for each failed
 * attempt, {@code ENQUEUED}, {@code LAPSED <epoch ms> <message>} when the engine reports that its
 * heartbeat lapsed, then {@code DONE} after a graceful close. An unknown option (such as the former
 * {@code lease}) stops it with exit status 2.
 */
public final class ClusterNode {
  static final String DEFINITION = "cluster";
  static final int BATCH = 100;
  /** How often a node looks for due notices it was not told about (claims). */
  static final long POLL_INTERVAL_MS = 100;
  static final java.util.Set<String> OPTIONS = java.util.Set.of("url", "user", "password", "initSql", "node", "log",
      "stop", "nodeTimeout", "lookAhead", "delay", "concurrency", "maxHeld", "claimBatch", "pace", "from", "to",
      "fireIn");

  private ClusterNode() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    for (String key : a.keySet()) {
      if (!OPTIONS.contains(key)) {
        System.out.println("UNKNOWN OPTION " + key + (key.equals("lease") ? " (renamed to nodeTimeout)" : ""));
        System.out.flush();
        System.exit(2);
      }
    }
    String node = a.get("node");
    Path stop = Path.of(a.get("stop"));
    long delayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a.getOrDefault("delay", "0")));
    Duration nodeTimeout = a.containsKey("nodeTimeout") ? Duration.ofMillis(Long.parseLong(a.get("nodeTimeout"))) : null;
    Duration lookAhead = Duration.ofMillis(Long.parseLong(a.getOrDefault("lookAhead", "2000")));
    int from = Integer.parseInt(a.getOrDefault("from", "0"));
    int to = Integer.parseInt(a.getOrDefault("to", "0"));
    String initSql = a.get("initSql");
    long paceNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a.getOrDefault("pace", "0")));
    String fireIn = a.get("fireIn");
    long fireMin = fireIn == null ? 0 : Long.parseLong(fireIn.substring(0, fireIn.indexOf('-')));
    long fireMax = fireIn == null ? 0 : Long.parseLong(fireIn.substring(fireIn.indexOf('-') + 1));
    PrintStream out = System.out;

    FileChannel log = FileChannel.open(Path.of(a.get("log")), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    Herald.Builder builder = Herald.builder()
        .jdbc(a.get("url"), a.get("user"), a.getOrDefault("password", ""))
        .pool(config -> {
          config.setMaximumPoolSize(8);
          config.setConnectionTimeout(2_000);
          if (initSql != null && !initSql.isBlank()) {
            config.setConnectionInitSql(initSql);
          }
        })
        .nodeId(node)
        .define(NoticeDefinition.builder(DEFINITION).handler("record").retry("200ms").unlimitedAttempts().build())
        .handler("record", ctx -> {
          long entered = System.currentTimeMillis();
          if (delayNanos > 0) {
            LockSupport.parkNanos(delayNanos);
          }
          String p = ctx.payload();
          String line = p.substring(p.indexOf(':') + 1, p.length() - 1) + " " + node + " " + System.currentTimeMillis()
              + " " + entered + "\n";
          ByteBuffer buf = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
          synchronized (log) {
            while (buf.hasRemaining()) {
              log.write(buf);
            }
          }
          return DeliveryResult.delivered();
        })
        .listener(new dev.herald.HeraldListener() {
          @Override
          public void onEngineError(String step, Throwable error) {
            if (step.equals("heartbeat") && String.valueOf(error.getMessage()).contains("missed its heartbeats")) {
              out.println("LAPSED " + System.currentTimeMillis() + " " + error.getMessage());
              out.flush();
            }
          }
        })
        .lookAhead(lookAhead)
        .pollInterval(Duration.ofMillis(POLL_INTERVAL_MS))
        .maxConcurrentDeliveries(Integer.parseInt(a.getOrDefault("concurrency", "16")))
        .maxHeld(Integer.parseInt(a.getOrDefault("maxHeld", "1000")))
        .claimBatch(Integer.parseInt(a.getOrDefault("claimBatch", "200")))
        .shutdownTimeout(Duration.ofSeconds(10));
    if (nodeTimeout != null) {
      builder.nodeTimeout(nodeTimeout);
    }
    Herald herald = builder.build().start();
    out.println("STARTED " + node + " pid " + ProcessHandle.current().pid());
    out.flush();

    for (int first = from; first < to; first += BATCH) {
      int last = Math.min(to, first + BATCH);
      List<NoticeRequest> batch = new ArrayList<>(last - first);
      for (int i = first; i < last; i++) {
        NoticeRequest request = NoticeRequest.of(DEFINITION, "{\"n\":" + i + "}").idempotencyKey("n-" + i);
        if (fireIn != null) {
          long span = fireMax - fireMin;
          long in = fireMin + (to - from <= 1 ? 0 : span * (i - from) / (to - from - 1));
          request = request.fireAt(java.time.Instant.ofEpochMilli(System.currentTimeMillis() + in));
        }
        batch.add(request);
      }
      while (true) {
        try {
          herald.inTransaction(tx -> tx.enqueueAll(batch));
          break;
        } catch (StoreException e) {
          out.println("ENQUEUE-FAILED " + first + ": " + e.getMessage());
          out.flush();
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
      }
      out.println("ACKED " + (last - 1));
      out.flush();
      if (paceNanos > 0) {
        LockSupport.parkNanos(paceNanos);
      }
    }
    out.println("ENQUEUED");
    out.flush();

    while (!Files.exists(stop)) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
    herald.close();
    close(log);
    out.println("DONE");
    out.flush();
    System.exit(0);
  }

  private static void close(FileChannel log) throws IOException {
    synchronized (log) {
      log.close();
    }
  }
}
