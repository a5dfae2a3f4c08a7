package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Case 1: N notices already due, a no-op handler; deliveries per second from engine start until the
 * last one is recorded as delivered (Herald: SUCCEEDED and archived; db-scheduler: its row deleted).
 */
final class BurnDown {
  static final String CASE = "burn-down";

  private BurnDown() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    int warm = Math.min(ctx.o().jitWarmup, ctx.o().n);
    if (warm > 0) {
      // not recorded: compiles the hot code of each system (and the driver) before anything is measured, so
      // that whichever runs first does not pay for the JIT compiler's CPU on a small machine
      for (String system : ctx.o().systems) {
        System.out.printf("  warm-up, not recorded: %s burn-down of %,d%n", system, warm);
        try (BenchDb.Space space = db.open(CASE + "-warmup-" + system);
            Progress.Quiet q = Progress.quiet()) {
          Result r = system.equals("herald")
              ? herald(ctx.quiet(), db, space, warm, CASE, "warm-up")
              : dbScheduler(ctx.quiet(), db, space, warm);
          System.out.printf("    (warm-up %s: %s)%n", system, Bench.headline(r));
        }
      }
    }
    for (int r = 0; r < ctx.o().repeat; r++) {
      for (String system : ctx.o().systems) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + system)) {
          result = system.equals("herald")
              ? herald(ctx, db, space, ctx.o().n, CASE, "due-now")
              : dbScheduler(ctx, db, space, ctx.o().n);
        }
        ctx.add(result, db);
      }
    }
  }

  /**
   * Loads {@code n} due notices into {@code space} (which may hold other rows: scale's future ones) and
   * measures a Herald started on it until all n are recorded SUCCEEDED.
   */
  static Result herald(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int n, String caseName, String variant) {
    return herald(ctx, db, space, n, caseName, variant, Systems.Setup.LOCAL);
  }

  static Result herald(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int n, String caseName, String variant,
      Systems.Setup setup) {
    Options o = ctx.o();
    Result.Builder rb = Result.of(caseName, "herald", variant, db.kind()).settings(Systems.heraldSettings(o))
        .setting("n", n).setting("delivery", setup.description());
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    AtomicLong calls = new AtomicLong();
    try (Herald herald = Systems.herald(o, db, space.dataSource(), setup, c -> {
      calls.incrementAndGet();
      return DeliveryResult.delivered();
    }, counter)) {
      long historyBefore = Rows.count(space.dataSource(), "SELECT COUNT(*) FROM herald_notice_history");
      long now = System.currentTimeMillis();
      Rows.heraldNotices(space.dataSource(), db.kind(), n, i -> now - 1_000, "due notices");
      counter.expect(n);
      System.out.printf("  %s herald %s on %s: %,d notices due, starting the engine%n", caseName, variant, db.kind(), n);
      boolean done;
      long t0;
      long startNanos;
      Map<String, Long> before = db.counters();
      try (Jfr jfr = Jfr.start(o, caseName + "-herald-" + variant + "-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, caseName + " herald " + variant);
          Progress p = new Progress(caseName + " herald delivered", counter.succeeded::get, n)) {
        t0 = System.nanoTime();
        herald.start();
        startNanos = System.nanoTime() - t0;
        done = counter.await(o.timeoutSeconds);
      }
      BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
      long end = done ? counter.lastNanos : System.nanoTime();
      double seconds = (end - t0) / 1e9;
      long succeeded = counter.succeeded.get();
      // Counted before close(): every SUCCEEDED reported is committed, and close() under way can disturb
      // an embedded H2 (it interrupts the poller, see README "Findings").
      long live = Rows.count(space.dataSource(),
          "SELECT COUNT(*) FROM herald_notice WHERE due_at <= " + System.currentTimeMillis());
      long archived = Rows.count(space.dataSource(),
          "SELECT COUNT(*) FROM herald_notice_history WHERE status = 'SUCCEEDED'") - historyBefore;
      // notices that needed more than one attempt (a channel's retry: a confirm timed out, a send failed)
      long retried = Rows.count(space.dataSource(),
          "SELECT COUNT(*) FROM herald_notice_history WHERE status = 'SUCCEEDED' AND attempts > 1");
      rb.metric("delivered", succeeded)
          .metric("seconds", seconds)
          .metric("deliveries_per_s", succeeded / seconds)
          // start() first frees this node's old leases (releaseAll), which costs more as the table grows
          .metric("start_ms", startNanos / 1e6)
          .metric("deliveries_per_s_after_start", succeeded / (seconds - startNanos / 1e9))
          .metric("handler_calls", calls.get())
          .metric("stale_outcomes", counter.stale.get())
          .metric("engine_errors", counter.errors.get())
          .metric("due_rows_left", live)
          .metric("archived_succeeded", archived)
          .metric("retried", retried);
      if (!done) {
        rb.failed("timeout after " + o.timeoutSeconds + " s: " + succeeded + " of " + n + " delivered");
      } else if (live != 0 || archived != n) {
        rb.failed("check failed: " + live + " due rows left, " + archived + " archived as SUCCEEDED (expected 0, " + n + ")");
      }
      return rb.build();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }

  static Result dbScheduler(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int n) {
    return dbScheduler(ctx, db, space, n, CASE, Systems.dbsStrategy(ctx.o(), db), null);
  }

  /** {@code work} runs in each execution (after it is counted); null for none. */
  static Result dbScheduler(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int n, String caseName, String variant,
      Runnable work) {
    Options o = ctx.o();
    Result.Builder rb = Result.of(caseName, "db-scheduler", variant, db.kind())
        .settings(Systems.dbsSettings(o, db)).setting("n", n);
    Rows.createDbSchedulerTable(space.dataSource(), db.kind());
    long now = System.currentTimeMillis();
    Rows.dbSchedulerTasks(space.dataSource(), db.kind(), n, i -> now - 1_000, "due executions");
    Systems.DbsCounter counter = new Systems.DbsCounter();
    counter.expect(n);
    AtomicLong calls = new AtomicLong();
    OneTimeTask<Void> task = Tasks.oneTime(Rows.DBS_TASK).execute((inst, c) -> {
      calls.incrementAndGet();
      if (work != null) {
        work.run();
      }
    });
    Scheduler scheduler = Systems.dbScheduler(o, db, space.dataSource(), task, counter);
    System.out.printf("  %s db-scheduler on %s: %,d executions due, starting the scheduler%n", caseName, db.kind(), n);
    boolean done;
    long t0;
    Map<String, Long> before = db.counters();
    try (Jfr jfr = Jfr.start(o, caseName + "-db-scheduler-" + db.kind());
        WallProfiler wall = WallProfiler.start(o, caseName + " db-scheduler");
        Progress p = new Progress(caseName + " db-scheduler completed", counter.succeeded::get, n)) {
      t0 = System.nanoTime();
      scheduler.start();
      done = counter.await(o.timeoutSeconds);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    } finally {
      scheduler.stop();
    }
    BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
    long end = done ? counter.lastNanos : System.nanoTime();
    double seconds = (end - t0) / 1e9;
    long succeeded = counter.succeeded.get();
    long left = Rows.count(space.dataSource(), "SELECT COUNT(*) FROM scheduled_tasks");
    rb.metric("delivered", succeeded)
        .metric("seconds", seconds)
        .metric("deliveries_per_s", succeeded / seconds)
        .metric("handler_calls", calls.get())
        .metric("failed", counter.failed.get())
        .metric("rows_left", left);
    if (!done) {
      rb.failed("timeout after " + o.timeoutSeconds + " s: " + succeeded + " of " + n + " completed");
    } else if (left != 0) {
      rb.failed("check failed: " + left + " rows left in scheduled_tasks");
    }
    return rb.build();
  }
}
