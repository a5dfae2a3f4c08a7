package dev.herald.crash;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Herald node run in its own JVM by {@link KillNineTest}, so that it can be killed with SIGKILL.
 *
 * <p>Arguments: {@code <h2 file> <deliveries log> <node id> <mode> <count> [handler delay ms] [node
 * timeout ms]}. The node timeout defaults to Herald's (2 s): another node takes over this one's
 * notices once its heartbeat (every quarter of it) is that old.
 *
 * <ul>
 *   <li>{@code enqueue-and-deliver}: enqueues {@code count} notices with payload {@code {"n":i}} in
 *       transactions of {@value #BATCH}, printing {@code ACKED <last index>} after each commit, then
 *       {@code ENQUEUED}, and delivers until killed.
 *   <li>{@code deliver}: prints {@code RUNNING}, delivers until no notice is live any more, closes
 *       Herald, prints {@code DONE} and exits 0.
 * </ul>
 *
 * <p>The handler appends one line per delivery to the deliveries log, forced to disk, after sleeping
 * the handler delay (default 2 ms): the payload, a space, and the epoch millisecond the handler was
 * entered. Prints {@code STARTED <node id> pid <pid> at <epoch ms>} once Herald has started.
 */
public final class CrashNode {
  static final int BATCH = 100;
  static final String DEFINITION = "crash";
  static final String MODE_ENQUEUE = "enqueue-and-deliver";
  static final String MODE_DELIVER = "deliver";
  /** How often the node looks for due notices it was not told about (claims). */
  static final long POLL_INTERVAL_MS = 200;

  private CrashNode() {}

  /** The deliveries log: one line per delivery, appended and forced before the handler returns. */
  static final class DeliveryLog implements AutoCloseable {
    private final FileChannel channel;

    DeliveryLog(Path file) throws IOException {
      this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
    }

    synchronized void append(String line) throws IOException {
      ByteBuffer buf = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
      while (buf.hasRemaining()) {
        channel.write(buf);
      }
      channel.force(true);
    }

    @Override
    public synchronized void close() throws IOException {
      channel.close();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: CrashNode <h2 file> <deliveries log> <node id> <" + MODE_ENQUEUE + "|"
          + MODE_DELIVER + "> <count> [handler delay ms] [node timeout ms]");
      System.exit(2);
    }
    Path h2 = Path.of(args[0]);
    Path logFile = Path.of(args[1]);
    String nodeId = args[2];
    String mode = args[3];
    int count = Integer.parseInt(args[4]);
    long delayNanos = TimeUnit.MILLISECONDS.toNanos(args.length > 5 ? Long.parseLong(args[5]) : 2);
    Duration nodeTimeout = args.length > 6 ? Duration.ofMillis(Long.parseLong(args[6])) : null;
    if (!mode.equals(MODE_ENQUEUE) && !mode.equals(MODE_DELIVER)) {
      System.err.println("unknown mode " + mode);
      System.exit(2);
    }
    PrintStream out = System.out;

    DeliveryLog log = new DeliveryLog(logFile);
    Herald.Builder builder = Herald.builder()
        .h2File(h2)
        .nodeId(nodeId)
        .define(NoticeDefinition.builder(DEFINITION).handler("record").retry("100ms").unlimitedAttempts().build())
        .handler("record", ctx -> {
          long entered = System.currentTimeMillis();
          if (delayNanos > 0) {
            LockSupport.parkNanos(delayNanos);
          }
          log.append(ctx.payload() + " " + entered);
          return DeliveryResult.delivered();
        })
        .maxConcurrentDeliveries(8)
        .lookAhead(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(POLL_INTERVAL_MS));
    if (nodeTimeout != null) {
      builder.nodeTimeout(nodeTimeout);
    }
    Herald herald = builder.build().start();
    out.println("STARTED " + nodeId + " pid " + ProcessHandle.current().pid() + " at " + System.currentTimeMillis());
    out.flush();

    if (mode.equals(MODE_ENQUEUE)) {
      for (int from = 0; from < count; from += BATCH) {
        int to = Math.min(count, from + BATCH);
        List<NoticeRequest> batch = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
          batch.add(NoticeRequest.of(DEFINITION, "{\"n\":" + i + "}"));
        }
        herald.inTransaction(tx -> tx.enqueueAll(batch));
        out.println("ACKED " + (to - 1));
        out.flush();
      }
      out.println("ENQUEUED");
      out.flush();
      while (true) { // deliver until killed
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
      }
    }

    out.println("RUNNING");
    out.flush();
    NoticeQuery live = NoticeQuery.all()
        .statuses(NoticeStatus.PENDING, NoticeStatus.IN_FLIGHT, NoticeStatus.FAILED, NoticeStatus.AWAITING_CONFIRM)
        .page(0, 1);
    while (!herald.operations().query(live).items().isEmpty()) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    herald.close();
    log.close();
    out.println("DONE");
    out.flush();
    System.exit(0);
  }
}
