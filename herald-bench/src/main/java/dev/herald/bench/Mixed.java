package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Case {@code mixed}, closer to life than a burn-down: callers enqueue {@code --mixed-rate} notices/s
 * in business transactions of {@code --mixed-batch} notices each, every notice due {@code --delay}
 * after it is created, for {@code --mixed-duration} s; after the first {@code delay} the engine fires
 * as many per second as are enqueued. Measured: lateness (handler start minus fire time), the rate the
 * callers achieved and the rate delivered, and the heap (the most in use, and the most still live after a
 * collection, sampled every 200 ms).
 */
final class Mixed {
  static final String CASE = "mixed";

  private Mixed() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    for (int r = 0; r < o.repeat; r++) {
      for (String system : o.systems) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + system)) {
          result = system.equals("herald") ? herald(ctx, db, space) : dbScheduler(ctx, db, space);
        }
        ctx.add(result, db);
      }
    }
  }

  private static Result herald(Bench.Ctx ctx, BenchDb db, BenchDb.Space space) {
    Options o = ctx.o();
    int batch = o.mixedBatch;
    long measuredFrom = Math.round(o.mixedRate * o.warmupSeconds);
    Latencies lateness = new Latencies();
    AtomicLong measuredDelivered = new AtomicLong();
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    Duration delay = o.delay();
    try (Herald herald = Systems.herald(o, db, space.dataSource(), c -> {
      long now = Lateness.micros(Instant.now());
      if (Stream.seqOf(c.payload()) >= measuredFrom) {
        lateness.recordMicros(now - Lateness.micros(c.notice().fireAt()));
        measuredDelivered.incrementAndGet();
      }
      return DeliveryResult.delivered();
    }, counter).start()) {
      announce("herald", db, o);
      Map<String, Long> before = db.counters();
      Stream.Stats stats;
      Hiccups hiccups;
      HeapSampler heap;
      try (Jfr jfr = Jfr.start(o, CASE + "-herald-" + db.kind());
          Hiccups h = new Hiccups();
          HeapSampler hs = new HeapSampler()) {
        hiccups = h;
        heap = hs;
        stats = Stream.run(CASE + " herald", o.mixedRate / batch, o.warmupSeconds, o.mixedSeconds, o.producers, k -> {
          List<NoticeRequest> reqs = new ArrayList<>(batch);
          for (int i = 0; i < batch; i++) {
            reqs.add(NoticeRequest.of(Rows.DEFINITION, "{\"seq\":" + (k * batch + i) + "}").delay(delay));
          }
          herald.inTransaction(tx -> tx.enqueueAll(reqs));
        });
        counter.expect((stats.total() - stats.failures()) * batch);
        await(delay, counter::await);
      }
      Result.Builder rb = Result.of(CASE, "herald", "batch" + batch, db.kind()).settings(Systems.heraldSettings(o));
      hiccups.into(rb.metricsView());
      heap.into(rb);
      BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
      return finish(rb, o, stats, lateness, counter.succeeded.get(), measuredDelivered.get());
    }
  }

  private static Result dbScheduler(Bench.Ctx ctx, BenchDb db, BenchDb.Space space) {
    Options o = ctx.o();
    int batch = o.mixedBatch;
    long measuredFrom = Math.round(o.mixedRate * o.warmupSeconds);
    Latencies lateness = new Latencies();
    AtomicLong measuredDelivered = new AtomicLong();
    Rows.createDbSchedulerTable(space.dataSource(), db.kind());
    Systems.DbsCounter counter = new Systems.DbsCounter();
    OneTimeTask<Void> task = Tasks.oneTime(Rows.DBS_TASK).execute((inst, c) -> {
      long now = Lateness.micros(Instant.now());
      if (Long.parseLong(inst.getId()) >= measuredFrom) {
        lateness.recordMicros(now - Lateness.micros(c.getExecution().getExecutionTime()));
        measuredDelivered.incrementAndGet();
      }
    });
    Scheduler scheduler = Systems.dbScheduler(o, db, space.dataSource(), task, counter);
    Duration delay = o.delay();
    announce("db-scheduler", db, o);
    scheduler.start();
    Map<String, Long> before = db.counters();
    Stream.Stats stats;
    Hiccups hiccups;
    HeapSampler heap;
    try (Jfr jfr = Jfr.start(o, CASE + "-db-scheduler-" + db.kind());
        Hiccups h = new Hiccups();
        HeapSampler hs = new HeapSampler()) {
      hiccups = h;
      heap = hs;
      stats = Stream.run(CASE + " db-scheduler", o.mixedRate / batch, o.warmupSeconds, o.mixedSeconds, o.producers,
          k -> {
            List<TaskInstance<?>> instances = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
              instances.add(task.instance(Long.toString(k * batch + i)));
            }
            scheduler.scheduleBatch(instances, Instant.now().plus(delay));
          });
      counter.expect((stats.total() - stats.failures()) * batch);
      await(delay, counter::await);
    } finally {
      scheduler.stop();
    }
    Result.Builder rb = Result.of(CASE, "db-scheduler", "batch" + batch, db.kind()).settings(Systems.dbsSettings(o, db));
    hiccups.into(rb.metricsView());
    heap.into(rb);
    BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
    return finish(rb, o, stats, lateness, counter.succeeded.get(), measuredDelivered.get());
  }

  private static void announce(String system, BenchDb db, Options o) {
    System.out.printf("  %s %s on %s: %,d notices/s enqueued in transactions of %d for %s s (+%s s warm-up),"
        + " each due %s s after creation%n", CASE, system, db.kind(), o.mixedRate, o.mixedBatch, o.mixedSeconds,
        o.warmupSeconds, o.delay().toMillis() / 1000.0);
  }

  private static void await(Duration delay, Lateness.Await await) {
    try {
      await.await(delay.toSeconds() + 61);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }

  private static Result finish(Result.Builder rb, Options o, Stream.Stats stats, Latencies lateness, long delivered,
      long measuredDelivered) {
    int batch = o.mixedBatch;
    rb.setting("rate_target", o.mixedRate).setting("batch", batch).setting("duration_s", o.mixedSeconds)
        .setting("warmup_s", o.warmupSeconds).setting("delay_s", o.delaySeconds).setting("producers", o.producers);
    rb.metric("rate_target", o.mixedRate);
    rb.metric("rate_achieved", stats.achievedRate() * batch);
    rb.metric("delivered_per_s_measured", measuredDelivered / stats.measuredSeconds());
    rb.metric("created", (stats.total() - stats.failures()) * batch);
    rb.metric("delivered", delivered);
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    lateness.into(m, "lateness_");
    stats.createLatency().into(m, "create_");
    m.forEach(rb::metric);
    long expected = (stats.total() - stats.failures()) * batch;
    if (delivered < expected) {
      rb.failed("only " + delivered + " of " + expected + " delivered within " + (o.delaySeconds + 60)
          + " s after the stream ended");
    } else if (stats.failures() > 0) {
      rb.failed(stats.failures() + " transactions failed, first: " + stats.firstFailure());
    }
    return rb.build();
  }

  /**
   * Samples the heap every 200 ms: the most in use, and the most still live after a collection (the
   * heap pools' collection usage, which G1 updates after each young or mixed collection).
   */
  static final class HeapSampler implements AutoCloseable {
    private final Thread thread;
    private volatile boolean done;
    private final AtomicLong maxUsed = new AtomicLong();
    private final AtomicLong maxAfterGc = new AtomicLong();

    HeapSampler() {
      List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP).toList();
      thread = Thread.ofPlatform().daemon().name("bench-heap-sampler").start(() -> {
        while (!done) {
          maxUsed.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
          long afterGc = 0;
          for (MemoryPoolMXBean p : pools) {
            MemoryUsage u = p.getCollectionUsage();
            afterGc += u == null ? 0 : u.getUsed();
          }
          maxAfterGc.accumulateAndGet(afterGc, Math::max);
          try {
            Thread.sleep(200);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
    }

    void into(Result.Builder rb) {
      rb.metric("heap_used_max_mb", maxUsed.get() / 1048576.0);
      rb.metric("heap_after_gc_max_mb", maxAfterGc.get() / 1048576.0);
    }

    @Override
    public void close() {
      done = true;
      thread.interrupt();
    }
  }
}
