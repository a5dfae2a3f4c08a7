package dev.herald.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeHandler;
import dev.herald.NoticeStatus;
import dev.herald.spi.Channel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/** Herald and db-scheduler, built the same way for every case, and what counts their finished work. */
final class Systems {
  /** Herald's node id in every case. */
  static final String NODE_ID = "bench-node";

  static final String HANDLER = "noop";

  private Systems() {}

  // ================================================================ Herald

  /**
   * How Herald delivers in a run: the bench definition, and the channel it needs besides the local one
   * (null: the in-process handler).
   */
  record Setup(NoticeDefinition definition, Channel channel, String description) {
    static final Setup LOCAL = new Setup(NoticeDefinition.builder(Rows.DEFINITION).handler(HANDLER).build(), null,
        "in-process no-op (local channel)");
  }

  /** A Herald on {@code ds} with the bench definition bound to {@code handler}; built (schema migrated), not started. */
  static Herald herald(Options o, BenchDb db, DataSource ds, NoticeHandler handler, HeraldListener listener) {
    return herald(o, db, ds, Setup.LOCAL, handler, listener);
  }

  /** A Herald on {@code ds} delivering the bench definition as {@code setup} says; built, not started. */
  static Herald herald(Options o, BenchDb db, DataSource ds, Setup setup, NoticeHandler handler,
      HeraldListener listener) {
    Duration lookAhead = Duration.ofMillis(o.lookAheadMillis);
    try {
      Herald.Builder b = Herald.builder();
      if (setup.channel() != null) {
        b.channel(setup.channel());
      }
      return b
          .dataSource(ds)
          .nodeId(NODE_ID)
          .define(setup.definition())
          .handler(HANDLER, handler)
          .listener(listener)
          .maxConcurrentDeliveries(o.slots())
          .maxConcurrentPerReceiver(o.slots()) // the bench has one receiver: the node's slots are its
          .claimBatch(o.claimBatch)
          .writeBatch(o.writeBatch)
          .maxHeld(o.maxHeld)
          .pollInterval(Duration.ofMillis(o.pollMillis))
          .lookAhead(lookAhead)
          .housekeepingInterval(Duration.ofHours(1))
          .build();
    } catch (RuntimeException e) {
      if (db.kind().equals("postgres")) {
        throw new BenchException("Herald cannot run on PostgreSQL with this herald-core build (its PostgreSQL"
            + " dialect is being added in another change): " + e.getMessage(), e);
      }
      throw e;
    }
  }

  static Map<String, Object> heraldSettings(Options o) {
    Map<String, Object> m = new LinkedHashMap<>(o.common());
    m.put("maxConcurrentDeliveries", o.slots());
    m.put("maxConcurrentPerReceiver", o.slots());
    m.put("claimBatch", o.claimBatch);
    m.put("writeBatch", o.writeBatch);
    m.put("maxHeld", o.maxHeld);
    m.put("pollInterval_ms", o.pollMillis);
    m.put("lookAhead_ms", o.lookAheadMillis);
    m.put("handler", "in-process no-op (local channel)");
    return m;
  }

  /** Counts notices that reached SUCCEEDED (after the commit that recorded it) and errors the engine reported. */
  static final class HeraldCounter implements HeraldListener {
    final AtomicLong succeeded = new AtomicLong();
    final AtomicLong otherFinished = new AtomicLong();
    final AtomicLong stale = new AtomicLong();
    final AtomicInteger errors = new AtomicInteger();
    volatile long lastNanos;
    private volatile long target = Long.MAX_VALUE;
    private final CountDownLatch reached = new CountDownLatch(1);

    void expect(long count) {
      target = count;
      if (succeeded.get() >= count) {
        reached.countDown();
      }
    }

    boolean await(long seconds) throws InterruptedException {
      return reached.await(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void onFinished(Notice notice) {
      if (notice.status() == NoticeStatus.SUCCEEDED) {
        long c = succeeded.incrementAndGet();
        lastNanos = System.nanoTime();
        if (c >= target) {
          reached.countDown();
        }
      } else {
        otherFinished.incrementAndGet();
      }
    }

    @Override
    public void onStaleOutcome(Notice notice, dev.herald.Attempt attempt) {
      stale.incrementAndGet();
    }

    @Override
    public void onEngineError(String step, Throwable error) {
      if (errors.incrementAndGet() <= 5) {
        System.err.println("    Herald engine error in " + step + ": " + error);
      }
    }
  }

  // ================================================================ db-scheduler

  /** The polling strategy db-scheduler uses on this database: lock-and-fetch where it has it (not on H2). */
  static String dbsStrategy(Options o, BenchDb db) {
    if (!o.dbsStrategy.equals("auto")) {
      return o.dbsStrategy;
    }
    return db.kind().equals("postgres") ? "lock-and-fetch" : "fetch";
  }

  static double dbsUpper(Options o, String strategy) {
    return o.dbsUpper > 0 ? o.dbsUpper : strategy.equals("lock-and-fetch") ? 1.0 : 3.0;
  }

  /** db-scheduler on {@code ds} with one one-time task; built, not started. The table must exist. */
  static Scheduler dbScheduler(Options o, BenchDb db, DataSource ds, OneTimeTask<Void> task, DbsCounter counter) {
    String strategy = dbsStrategy(o, db);
    SchedulerBuilder b = Scheduler.create(ds, task)
        .threads(o.threads)
        .pollingInterval(Duration.ofMillis(o.dbsPollMillis))
        .schedulerName(new SchedulerName.Fixed("bench-node"))
        .shutdownMaxWait(Duration.ofSeconds(10))
        .addSchedulerListener(counter);
    if (strategy.equals("lock-and-fetch")) {
      b.pollUsingLockAndFetch(o.dbsLower, dbsUpper(o, strategy));
    } else {
      b.pollUsingFetch(o.dbsLower, dbsUpper(o, strategy));
    }
    return b.build();
  }

  static Map<String, Object> dbsSettings(Options o, BenchDb db) {
    String strategy = dbsStrategy(o, db);
    Map<String, Object> m = new LinkedHashMap<>(o.common());
    m.put("db_scheduler_version", Scheduler.class.getPackage().getImplementationVersion() != null
        ? Scheduler.class.getPackage().getImplementationVersion() : "16.12.0");
    m.put("polling_strategy", strategy);
    m.put("lower_limit_fraction_of_threads", o.dbsLower);
    m.put("upper_limit_fraction_of_threads", dbsUpper(o, strategy));
    m.put("polling_interval_ms", o.dbsPollMillis);
    m.put("handler", "one-time task, no-op");
    return m;
  }

  /** Counts executions completed (their row deleted) by db-scheduler. */
  static final class DbsCounter extends AbstractSchedulerListener {
    final AtomicLong succeeded = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    volatile long lastNanos;
    private volatile long target = Long.MAX_VALUE;
    private final CountDownLatch reached = new CountDownLatch(1);

    void expect(long count) {
      target = count;
      if (succeeded.get() >= count) {
        reached.countDown();
      }
    }

    boolean await(long seconds) throws InterruptedException {
      return reached.await(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void onExecutionComplete(ExecutionComplete complete) {
      if (complete.getResult() == ExecutionComplete.Result.OK) {
        long c = succeeded.incrementAndGet();
        lastNanos = System.nanoTime();
        if (c >= target) {
          reached.countDown();
        }
      } else {
        failed.incrementAndGet();
      }
    }
  }
}
