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
 *   <li>{@code lease}, {@code delay} (handler, ms), {@code concurrency}, {@code maxHeld}, {@code claimBatch},
 *       {@code pace} (ms between enqueued batches)
 *   <li>{@code from}, {@code to}: enqueue notices {@code {"n":i}} for i in [from, to), in
 *       transactions of {@value #BATCH}, each with idempotency key {@code n-i}, so a batch whose commit
 *       failed (the database went away) is simply enqueued again
 * </ul>
 *
 * <p>The handler appends {@code <n> <node> <epoch ms>} to the log per delivery (not forced: a killed
 * process's writes survive in the page cache). Prints {@code STARTED}, {@code ACKED <i>} after each
 * committed batch, {@code ENQUEUE-FAILED} for each failed attempt, {@code ENQUEUED}, then {@code DONE}
 * after a graceful close.
 */
public final class ClusterNode {
  static final String DEFINITION = "cluster";
  static final int BATCH = 100;

  private ClusterNode() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String node = a.get("node");
    Path stop = Path.of(a.get("stop"));
    long delayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a.getOrDefault("delay", "0")));
    Duration lease = Duration.ofMillis(Long.parseLong(a.getOrDefault("lease", "30000")));
    int from = Integer.parseInt(a.getOrDefault("from", "0"));
    int to = Integer.parseInt(a.getOrDefault("to", "0"));
    String initSql = a.get("initSql");
    long paceNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a.getOrDefault("pace", "0")));
    PrintStream out = System.out;

    FileChannel log = FileChannel.open(Path.of(a.get("log")), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    Herald herald = Herald.builder()
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
          if (delayNanos > 0) {
            LockSupport.parkNanos(delayNanos);
          }
          String p = ctx.payload();
          String line = p.substring(p.indexOf(':') + 1, p.length() - 1) + " " + node + " " + System.currentTimeMillis() + "\n";
          ByteBuffer buf = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
          synchronized (log) {
            while (buf.hasRemaining()) {
              log.write(buf);
            }
          }
          return DeliveryResult.delivered();
        })
        .nodeTimeout(lease)
        .lookAhead(Duration.ofMillis(2_000))
        .pollInterval(Duration.ofMillis(100))
        .maxConcurrentDeliveries(Integer.parseInt(a.getOrDefault("concurrency", "16")))
        .maxHeld(Integer.parseInt(a.getOrDefault("maxHeld", "1000")))
        .claimBatch(Integer.parseInt(a.getOrDefault("claimBatch", "200")))
        .shutdownTimeout(Duration.ofSeconds(10))
        .build()
        .start();
    out.println("STARTED " + node + " pid " + ProcessHandle.current().pid());
    out.flush();

    for (int first = from; first < to; first += BATCH) {
      int last = Math.min(to, first + BATCH);
      List<NoticeRequest> batch = new ArrayList<>(last - first);
      for (int i = first; i < last; i++) {
        batch.add(NoticeRequest.of(DEFINITION, "{\"n\":" + i + "}").idempotencyKey("n-" + i));
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
