package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Case 2: a steady stream of R notices per second, each due {@code delay} after it is created;
 * lateness = handler start minus fire time. The first {@code warmup} seconds are created and delivered
 * but not measured.
 */
final class Lateness {
  static final String CASE = "lateness";

  private Lateness() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    for (int r = 0; r < o.repeat; r++) {
      for (String system : o.systems) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + system)) {
          result = system.equals("herald")
              ? herald(ctx, db, space, CASE, "enqueue+delay", o.rate, o.durationSeconds)
              : dbScheduler(ctx, db, space, o.rate, o.durationSeconds);
        }
        ctx.add(result, db);
      }
    }
  }

  static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }

  /** Herald: {@code herald.enqueue(NoticeRequest.of(...).delay(delay))}, in its own transaction, from producer threads. */
  static Result herald(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, String caseName, String variant, int rate,
      double seconds) {
    Options o = ctx.o();
    Latencies lateness = new Latencies();
    long measuredFrom = Math.round(rate * o.warmupSeconds);
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    Duration delay = o.delay();
    java.util.Queue<long[]> late = new java.util.concurrent.ConcurrentLinkedQueue<>();
    AfterCommit afterCommit = new AfterCommit(measuredFrom);
    try (Herald herald = Systems.herald(o, db, space.dataSource(), c -> {
      Instant at = Instant.now();
      long now = micros(at);
      afterCommit.started(Stream.seqOf(c.payload()), now);
      if (Stream.seqOf(c.payload()) >= measuredFrom) {
        long us = now - micros(c.notice().fireAt());
        lateness.recordMicros(us);
        if (us >= LATE_EVENT_MICROS) {
          late.add(new long[] {at.toEpochMilli(), us / 1000});
        }
      }
      return DeliveryResult.delivered();
    }, counter).start()) {
      System.out.printf("  %s herald %s on %s: %,d/s for %s s (+%s s warm-up), due %s s after creation%n", caseName,
          variant, db.kind(), rate, seconds, o.warmupSeconds, delay.toMillis() / 1000.0);
      Stream.Stats stats;
      Hiccups hiccups;
      Map<String, Long> before = db.counters();
      try (Jfr jfr = Jfr.start(o, caseName + "-herald-" + variant + "-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, caseName + " herald " + variant);
          Hiccups h = new Hiccups()) {
        hiccups = h;
        stats = Stream.run(caseName + " herald", rate, o.warmupSeconds, seconds, o.producers,
            seq -> {
              herald.enqueue(NoticeRequest.of(Rows.DEFINITION, "{\"seq\":" + seq + "}").delay(delay));
              afterCommit.committed(seq, micros(Instant.now()));
            });
        counter.expect(stats.total() - stats.failures());
        drain(o, delay, counter::await);
      }
      Result.Builder rb = Result.of(caseName, "herald", variant, db.kind()).settings(Systems.heraldSettings(o));
      afterCommit.into(rb, delay);
      hiccups.into(rb.metricsView());
      lateEvents(rb, hiccups, late);
      BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
      return finish(rb, o, rate, seconds, stats, lateness, counter.succeeded.get(), counter.errors.get());
    }
  }

  static Result dbScheduler(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, int rate, double seconds) {
    Options o = ctx.o();
    Latencies lateness = new Latencies();
    long measuredFrom = Math.round(rate * o.warmupSeconds);
    Rows.createDbSchedulerTable(space.dataSource(), db.kind());
    Systems.DbsCounter counter = new Systems.DbsCounter();
    java.util.Queue<long[]> late = new java.util.concurrent.ConcurrentLinkedQueue<>();
    AfterCommit afterCommit = new AfterCommit(measuredFrom);
    OneTimeTask<Void> task = Tasks.oneTime(Rows.DBS_TASK).execute((inst, c) -> {
      Instant at = Instant.now();
      long now = micros(at);
      afterCommit.started(Long.parseLong(inst.getId()), now);
      if (Long.parseLong(inst.getId()) >= measuredFrom) {
        long us = now - micros(c.getExecution().getExecutionTime());
        lateness.recordMicros(us);
        if (us >= LATE_EVENT_MICROS) {
          late.add(new long[] {at.toEpochMilli(), us / 1000});
        }
      }
    });
    Scheduler scheduler = Systems.dbScheduler(o, db, space.dataSource(), task, counter);
    Duration delay = o.delay();
    System.out.printf("  %s db-scheduler on %s: %,d/s for %s s (+%s s warm-up), due %s s after creation%n", CASE,
        db.kind(), rate, seconds, o.warmupSeconds, delay.toMillis() / 1000.0);
    scheduler.start();
    Stream.Stats stats;
    Hiccups hiccups;
    Map<String, Long> before = db.counters();
    try (Jfr jfr = Jfr.start(o, CASE + "-db-scheduler-" + db.kind());
        WallProfiler wall = WallProfiler.start(o, CASE + " db-scheduler");
        Hiccups h = new Hiccups()) {
      hiccups = h;
      stats = Stream.run(CASE + " db-scheduler", rate, o.warmupSeconds, seconds, o.producers,
          seq -> {
            scheduler.schedule(task.instance(Long.toString(seq)), Instant.now().plus(delay));
            afterCommit.committed(seq, micros(Instant.now()));
          });
      counter.expect(stats.total() - stats.failures());
      drain(o, delay, counter::await);
    } finally {
      scheduler.stop();
    }
    Result.Builder rb = Result.of(CASE, "db-scheduler", Systems.dbsStrategy(o, db), db.kind())
        .settings(Systems.dbsSettings(o, db));
    afterCommit.into(rb, delay);
    hiccups.into(rb.metricsView());
    lateEvents(rb, hiccups, late);
    BenchDb.perDelivery(rb, before, db.counters(), counter.succeeded.get());
    return finish(rb, o, rate, seconds, stats, lateness, counter.succeeded.get(), 0);
  }

  /**
   * For notices due at creation ({@code --delay 0}): handler start minus the moment the create call
   * returned, its transaction committed; what a caller waits for after its commit. A handler that
   * started before the call returned (it may, once the commit is in) counts as 0 ms, and is counted.
   */
  static final class AfterCommit {
    private final long measuredFrom;
    private final Map<Long, Long> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Long, Long> started = new java.util.concurrent.ConcurrentHashMap<>();

    AfterCommit(long measuredFrom) {
      this.measuredFrom = measuredFrom;
    }

    void committed(long seq, long micros) {
      if (seq >= measuredFrom) {
        committed.put(seq, micros);
      }
    }

    void started(long seq, long micros) {
      if (seq >= measuredFrom) {
        started.putIfAbsent(seq, micros);
      }
    }

    void into(Result.Builder rb, Duration delay) {
      if (!delay.isZero()) {
        return;
      }
      Latencies after = new Latencies();
      long beforeReturn = 0;
      for (Map.Entry<Long, Long> e : committed.entrySet()) {
        Long start = started.get(e.getKey());
        if (start != null) {
          long us = start - e.getValue();
          beforeReturn += us < 0 ? 1 : 0;
          after.recordMicros(Math.max(0, us));
        }
      }
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      after.into(m, "after_commit_");
      m.forEach(rb::metric);
      rb.metric("after_commit_started_before_return", beforeReturn);
    }
  }

  /** Deliveries at least this late are kept with their time, to set beside the machine's stalls. */
  static final long LATE_EVENT_MICROS = 20_000;

  private static void lateEvents(Result.Builder rb, Hiccups hiccups, java.util.Collection<long[]> late) {
    java.util.List<long[]> all = new java.util.ArrayList<>(late);
    rb.metric("late_over_20ms", all.size());
    rb.metric("late_over_20ms_during_a_stall", hiccups.overlapping(all));
  }

  interface Await {
    boolean await(long seconds) throws InterruptedException;
  }

  private static void drain(Options o, Duration delay, Await await) {
    try {
      await.await(delay.toSeconds() + 61);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }

  static Result finish(Result.Builder rb, Options o, int rate, double seconds, Stream.Stats stats, Latencies lateness,
      long delivered, int engineErrors) {
    rb.setting("rate_target", rate).setting("duration_s", seconds).setting("warmup_s", o.warmupSeconds)
        .setting("delay_s", o.delaySeconds).setting("producers", o.producers);
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("rate_target", rate);
    m.put("rate_achieved", stats.achievedRate());
    m.put("created", stats.total() - stats.failures());
    m.put("delivered", delivered);
    lateness.into(m, "lateness_");
    stats.createLatency().into(m, "create_");
    m.put("create_failures", stats.failures());
    m.put("engine_errors", engineErrors);
    m.forEach(rb::metric);
    long expected = stats.total() - stats.failures();
    if (delivered < expected) {
      rb.failed("only " + delivered + " of " + expected + " delivered within " + (o.delaySeconds + 60)
          + " s after the stream ended");
    } else if (stats.failures() > 0) {
      rb.failed(stats.failures() + " creates failed, first: " + stats.firstFailure());
    }
    return rb.build();
  }
}
