package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Case 4: notices created per second through the Java API, by a few caller threads in a closed loop,
 * on a running engine. Variants: batches of 100 in one caller transaction ({@code inTransaction(tx ->
 * tx.enqueueAll(...))}) or one notice per {@code enqueue}; due in an hour (intake alone) or due now
 * (intake while the engine delivers them: pre-claim, confirm, fire). {@code jdbc-batch100} is the
 * reference: the same rows written with plain JDBC batches, 100 per transaction (the intake roof);
 * {@code dbs-batch100} the baseline: db-scheduler's {@code scheduleBatch} of as many executions.
 * Batches of 1,000: {@code batch1000-future}, {@code jdbc-batch1000}, {@code dbs-batch1000}.
 *
 * <p>TODO(http-api): the HTTP batch-create API comes with the server module; add it here as a variant
 * (a client posting batches of 100 to a local server) once that module exists.
 */
final class Intake {
  static final String CASE = "intake";

  private Intake() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    if (o.jitWarmup > 0) {
      // not recorded: as in the other cases, the first measured run of a system must not be the one that
      // pays for the JIT compiler; each system's path is warmed for a short while
      for (String variant : List.of("batch100-future", "jdbc-batch100", "dbs-batch100")) {
        System.out.printf("  warm-up, not recorded: intake %s for %.1f s%n", variant, WARMUP_SECONDS);
        try (BenchDb.Space space = db.open(CASE + "-warmup"); Progress.Quiet q = Progress.quiet()) {
          variant(ctx.quiet(), db, space, variant, WARMUP_SECONDS);
        }
      }
    }
    for (int r = 0; r < o.repeat; r++) {
      for (String variant : o.intakeVariants) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + variant)) {
          result = variant(ctx, db, space, variant, o.intakeSeconds);
        }
        ctx.add(result, db);
      }
    }
  }

  /** A variant's name read: {@code batch<N>-future|due}, {@code single-future|due}, {@code jdbc-batch<N>}, {@code dbs-batch<N>}. */
  record Shape(String system, int batch, boolean future) {
    static Shape of(String variant) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:batch(\\d+)|single)-(future|due)").matcher(variant);
      if (m.matches()) {
        return new Shape("herald", m.group(1) == null ? 1 : Integer.parseInt(m.group(1)), m.group(2).equals("future"));
      }
      m = java.util.regex.Pattern.compile("(jdbc|dbs|copy)-batch(\\d+)").matcher(variant);
      if (m.matches()) {
        String system = switch (m.group(1)) {
          case "jdbc" -> "jdbc";
          case "copy" -> "jdbc-copy";
          default -> "db-scheduler";
        };
        return new Shape(system, Integer.parseInt(m.group(2)), true);
      }
      throw new BenchException("unknown intake variant '" + variant + "': batch<N>-future, batch<N>-due, single-future,"
          + " single-due, jdbc-batch<N> (the plain JDBC roof), copy-batch<N> (the same rows by COPY, PostgreSQL)"
          + " or dbs-batch<N> (db-scheduler's scheduleBatch)");
    }
  }

  private static final double WARMUP_SECONDS = 2;

  private static Result variant(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, String variant, double seconds) {
    Options o = ctx.o();
    Shape shape = Shape.of(variant);
    boolean copy = shape.system().equals("jdbc-copy");
    if (copy && !db.kind().equals("postgres")) {
      throw new BenchException("intake variant " + variant + " is for PostgreSQL only");
    }
    boolean raw = shape.system().equals("jdbc") || copy;
    boolean dbs = shape.system().equals("db-scheduler");
    int batch = shape.batch();
    boolean future = shape.future();
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    Result.Builder rb = Result.of(CASE, shape.system(), variant, db.kind())
        .settings(dbs ? Systems.dbsSettings(o, db) : Systems.heraldSettings(o))
        .setting("batch", batch).setting("producers", o.intakeProducers).setting("duration_s", seconds)
        .setting("due", raw ? "n/a" : future ? "in 1 h (not delivered during the run)" : "now (delivered during the run)");
    if (dbs) {
      return dbScheduler(ctx, db, space, variant, batch, rb, seconds);
    }
    try (Herald herald = Systems.herald(o, db, space.dataSource(), c -> DeliveryResult.delivered(), counter)) {
      if (!raw) {
        herald.start();
      }
      Duration delay = future ? Duration.ofHours(1) : null;
      Worker work;
      if (raw) {
        work = copy ? rawCopy(space, batch) : rawBatch(space, batch);
      } else if (batch > 1) {
        work = seq -> {
          List<NoticeRequest> reqs = new ArrayList<>(batch);
          for (int i = 0; i < batch; i++) {
            reqs.add(request(seq + i, delay));
          }
          herald.inTransaction(tx -> tx.enqueueAll(reqs));
        };
      } else {
        work = seq -> herald.enqueue(request(seq, delay));
      }
      System.out.printf("  %s %s on %s: %d callers for %s s%n", CASE, variant, db.kind(), o.intakeProducers,
          seconds);
      Loop loop;
      Map<String, Long> before = db.counters();
      try (Jfr jfr = Jfr.start(o, CASE + "-" + variant + "-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, CASE + " " + variant)) {
        loop = closedLoop(CASE + " " + variant, o.intakeProducers, seconds, batch, work);
      }
      BenchDb.perDelivery(rb, before, db.counters(), loop.totalNotices);
      long deliveredDuringRun = counter.succeeded.get();
      if (!raw && !future) {
        // let the engine deliver what was enqueued before closing it: closing under load is not what
        // is measured here (and disturbs an embedded H2, see README "Findings")
        counter.expect(loop.totalNotices);
        try {
          counter.await(o.timeoutSeconds);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      rb.metric("notices", loop.measuredNotices)
          .metric("seconds", loop.measuredSeconds)
          .metric("notices_per_s", loop.measuredNotices / loop.measuredSeconds)
          .metric("transactions_per_s", loop.measuredNotices / (double) batch / loop.measuredSeconds);
      loop.latency.into(rb.metricsView(), "call_");
      rb.metric("failures", loop.failures);
      if (!raw && !future) {
        rb.metric("delivered_during_run", deliveredDuringRun);
      }
      if (loop.failures > 0) {
        rb.failed(loop.failures + " calls failed, first: " + loop.firstFailure);
      }
      return rb.build();
    }
  }

  /**
   * db-scheduler's batch scheduling ({@code SchedulerClient.scheduleBatch}) of {@code batch} one-time
   * executions due in an hour, on a started scheduler, by the same callers.
   */
  private static Result dbScheduler(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, String variant, int batch,
      Result.Builder rb, double seconds) {
    Options o = ctx.o();
    Rows.createDbSchedulerTable(space.dataSource(), db.kind());
    OneTimeTask<Void> task = Tasks.oneTime(Rows.DBS_TASK).execute((inst, c) -> {});
    Scheduler scheduler = Systems.dbScheduler(o, db, space.dataSource(), task, new Systems.DbsCounter());
    scheduler.start();
    try {
      Worker work = seq -> {
        List<TaskInstance<?>> instances = new ArrayList<>(batch);
        for (int i = 0; i < batch; i++) {
          instances.add(task.instance(Long.toString(seq + i)));
        }
        scheduler.scheduleBatch(instances, Instant.now().plus(Duration.ofHours(1)));
      };
      System.out.printf("  %s %s on %s: %d callers for %s s%n", CASE, variant, db.kind(), o.intakeProducers,
          seconds);
      Loop loop;
      Map<String, Long> before = db.counters();
      try (Jfr jfr = Jfr.start(o, CASE + "-" + variant + "-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, CASE + " " + variant)) {
        loop = closedLoop(CASE + " " + variant, o.intakeProducers, seconds, batch, work);
      }
      BenchDb.perDelivery(rb, before, db.counters(), loop.totalNotices);
      return measured(rb, loop, batch);
    } finally {
      scheduler.stop();
    }
  }

  private static Result measured(Result.Builder rb, Loop loop, int batch) {
    rb.metric("notices", loop.measuredNotices)
        .metric("seconds", loop.measuredSeconds)
        .metric("notices_per_s", loop.measuredNotices / loop.measuredSeconds)
        .metric("transactions_per_s", loop.measuredNotices / (double) batch / loop.measuredSeconds);
    loop.latency.into(rb.metricsView(), "call_");
    rb.metric("failures", loop.failures);
    if (loop.failures > 0) {
      rb.failed(loop.failures + " calls failed, first: " + loop.firstFailure);
    }
    return rb.build();
  }

  private static NoticeRequest request(long seq, Duration delay) {
    NoticeRequest r = NoticeRequest.of(Rows.DEFINITION, "{\"seq\":" + seq + "}");
    return delay == null ? r : r.delay(delay);
  }

  /** The reference: the rows Herald's intake writes, inserted with plain JDBC, {@code batch} per transaction. */
  private static Worker rawBatch(BenchDb.Space space, int batch) {
    boolean shard = Rows.columns(space.dataSource(), "herald_notice").contains("shard");
    String sql = "INSERT INTO herald_notice (id, definition, payload, status, attempts, retry_base, fire_at, due_at,"
        + " created_at, updated_at, lease_until, version" + (shard ? ", shard" : "")
        + ") VALUES (?, ?, ?, 'PENDING', 0, 0, ?, ?, ?, ?, 0, 1" + (shard ? ", ?" : "") + ")";
    Rows.UuidV7 ids = new Rows.UuidV7(System.currentTimeMillis());
    return seq -> {
      try (Connection c = space.dataSource().getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          long now = System.currentTimeMillis();
          for (int i = 0; i < batch; i++) {
            UUID id = ids.next();
            ps.setObject(1, id);
            ps.setString(2, Rows.DEFINITION);
            ps.setString(3, "{\"seq\":" + (seq + i) + "}");
            ps.setLong(4, now + 3_600_000);
            ps.setLong(5, now + 3_600_000);
            ps.setLong(6, now);
            ps.setLong(7, now);
            if (shard) {
              ps.setInt(8, Rows.shardOf(id));
            }
            ps.addBatch();
          }
          ps.executeBatch();
          c.commit();
        } catch (Exception e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }
    };
  }

  /** The same rows as {@link #rawBatch}, written by one {@code COPY ... FROM STDIN} per transaction. */
  private static Worker rawCopy(BenchDb.Space space, int batch) {
    boolean shard = Rows.columns(space.dataSource(), "herald_notice").contains("shard");
    String sql = "COPY herald_notice (id, definition, payload, status, attempts, retry_base, fire_at, due_at,"
        + " created_at, updated_at, lease_until, version" + (shard ? ", shard" : "") + ") FROM STDIN";
    Rows.UuidV7 ids = new Rows.UuidV7(System.currentTimeMillis());
    return seq -> {
      try (Connection c = space.dataSource().getConnection()) {
        c.setAutoCommit(false);
        try {
          long now = System.currentTimeMillis();
          StringBuilder sb = new StringBuilder(batch * 160);
          for (int i = 0; i < batch; i++) {
            UUID id = ids.next();
            sb.append(id).append('\t').append(Rows.DEFINITION).append("\t{\"seq\":").append(seq + i)
                .append("}\tPENDING\t0\t0\t").append(now + 3_600_000).append('\t').append(now + 3_600_000)
                .append('\t').append(now).append('\t').append(now).append("\t0\t1");
            if (shard) {
              sb.append('\t').append(Rows.shardOf(id));
            }
            sb.append('\n');
          }
          byte[] bytes = sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
          org.postgresql.copy.CopyIn in = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyIn(sql);
          in.writeToCopy(bytes, 0, bytes.length);
          in.endCopy();
          c.commit();
        } catch (Exception e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }
    };
  }

  interface Worker {
    void call(long firstSeq) throws Exception;
  }

  record Loop(long totalNotices, long measuredNotices, double measuredSeconds, long failures, String firstFailure, Latencies latency) {}

  /**
   * {@code callers} threads call {@code work} back to back for {@code seconds}; the first fifth (at most
   * 2 s) warms up and is not counted.
   */
  static Loop closedLoop(String label, int callers, double seconds, int perCall, Worker work) {
    AtomicLong seq = new AtomicLong();
    AtomicLong notices = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    String[] first = new String[1];
    Latencies latency = new Latencies();
    long start = System.nanoTime();
    long warmEnd = start + Math.min(2_000_000_000L, (long) (seconds * 200_000_000L));
    long end = start + (long) (seconds * 1_000_000_000L);
    AtomicLong atWarm = new AtomicLong(-1);
    List<Thread> threads = new ArrayList<>();
    try (Progress p = new Progress(label + " notices", notices::get, 0)) {
      for (int t = 0; t < callers; t++) {
        threads.add(Thread.ofPlatform().name("bench-caller-" + t).start(() -> {
          while (true) {
            long now = System.nanoTime();
            if (now >= end) {
              return;
            }
            if (now >= warmEnd && atWarm.get() < 0) {
              atWarm.compareAndSet(-1, notices.get());
            }
            long s = seq.getAndAdd(perCall);
            try {
              work.call(s);
              long took = System.nanoTime() - now;
              if (now >= warmEnd) {
                latency.recordMicros(took / 1_000);
              }
              notices.addAndGet(perCall);
            } catch (Exception e) {
              if (failures.incrementAndGet() == 1) {
                first[0] = e.toString();
              }
            }
          }
        }));
      }
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
    long measured = notices.get() - Math.max(0, atWarm.get());
    double measuredSeconds = (System.nanoTime() - warmEnd) / 1e9;
    return new Loop(notices.get(), measured, measuredSeconds, failures.get(), first[0], latency);
  }
}
