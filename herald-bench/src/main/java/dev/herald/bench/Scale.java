package dev.herald.bench;

import dev.herald.DeliveryResult;
import dev.herald.Herald;

/**
 * Case 5: Herald with a large backlog of future notices (5,000,000 by default) in its table. Measures
 * the heap the engine uses, running and idle, and what claiming and firing cost beside that backlog,
 * against the same measurements on an empty table in the same run:
 *
 * <ul>
 *   <li>{@code heap}: heap in use after a full GC with the engine started and idle, minus the same before
 *       it was built (the bench's own baseline);
 *   <li>{@code burn-down}: {@code --scale-due} notices already due, claimed through the poll (the claim
 *       query's cost at that table size);
 *   <li>{@code lateness}: a due stream of {@code --scale-rate}/s for {@code --scale-duration} s, enqueued
 *       through the API as in case 2.
 * </ul>
 */
final class Scale {
  static final String CASE = "scale";

  private Scale() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    int warm = Math.min(o.jitWarmup, o.scaleDue);
    if (warm > 0) {
      // not recorded: the empty-table run must not be the one that pays for the JIT compiler
      System.out.printf("  warm-up, not recorded: herald burn-down of %,d%n", warm);
      try (BenchDb.Space space = db.open(CASE + "-warmup"); Progress.Quiet q = Progress.quiet()) {
        BurnDown.herald(ctx.quiet(), db, space, warm, CASE, "warm-up");
      }
    }
    for (int r = 0; r < o.repeat; r++) {
      try (BenchDb.Space space = db.open(CASE)) {
        phase(ctx, db, space, "empty");
        long until = System.currentTimeMillis();
        long day = 86_400_000L;
        int n = o.scaleN;
        System.out.printf("  %s on %s: loading %,d future notices (due in 1 h to 30 d)%n", CASE, db.kind(), n);
        long t0 = System.nanoTime();
        Rows.heraldNotices(space.dataSource(), db.kind(), n,
            i -> until + 3_600_000L + (long) ((double) i / n * 29 * day), "future notices", true);
        System.out.printf("  %s on %s: loaded (and vacuumed) in %.0f s%n", CASE, db.kind(), (System.nanoTime() - t0) / 1e9);
        phase(ctx, db, space, fmt(n) + "-future");
      }
    }
  }

  static String fmt(int n) {
    return n % 1_000_000 == 0 ? n / 1_000_000 + "M" : n % 1_000 == 0 ? n / 1_000 + "k" : Integer.toString(n);
  }

  private static void phase(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, String backlog) {
    Options o = ctx.o();
    long futureRows = Rows.countOrZero(space.dataSource(), "SELECT COUNT(*) FROM herald_notice");
    // heap: before Herald exists, then with it started and idle
    long before = Env.heapAfterGc();
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    long after;
    long startMillis;
    try (Herald herald = Systems.herald(o, db, space.dataSource(), c -> DeliveryResult.delivered(), counter)) {
      // As a killed process leaves it: an earlier incarnation of this node id, whose notices start()
      // takes back (releaseHeld) before the loops run. Bounded by due time, that reads only the due end of
      // the claim index; a scan of the whole table (before) took 0.65-0.78 s beside 5M future notices.
      crashedIncarnation(space.dataSource());
      long t0 = System.nanoTime();
      herald.start();
      startMillis = (System.nanoTime() - t0) / 1_000_000;
      // idle a while (it claims at start, then every poll): whatever the engine loads when idle, it has by then
      sleep(o.scaleIdleMillis);
      after = Env.heapAfterGc();
    }
    // The two releases side by side on this table, for a node that holds nothing: the whole-table form
    // start() used before (releaseAll, owner and status are not indexed) and the bounded one it uses now.
    dev.herald.store.jdbc.JdbcNoticeStore store =
        dev.herald.store.jdbc.JdbcNoticeStore.create(space.dataSource(), java.time.Clock.systemUTC());
    java.time.Instant now = java.time.Instant.now();
    long r0 = System.nanoTime();
    store.releaseAll(Systems.NODE_ID + "#nobody", now);
    long releaseAllMicros = (System.nanoTime() - r0) / 1_000;
    r0 = System.nanoTime();
    store.releaseHeld(Systems.NODE_ID + "#nobody", now, now.plusMillis(o.lookAheadMillis).plusSeconds(2));
    long releaseHeldMicros = (System.nanoTime() - r0) / 1_000;
    Result.Builder heap = Result.of(CASE, "herald", "heap/" + backlog, db.kind()).settings(Systems.heraldSettings(o))
        .metric("release_all_ms", releaseAllMicros / 1000.0)
        .metric("release_held_ms", releaseHeldMicros / 1000.0)
        .setting("backlog", backlog).setting("future_rows", futureRows)
        .metric("heap_used_mb", after / 1048576.0)
        .metric("heap_before_herald_mb", before / 1048576.0)
        .metric("engine_heap_mb", (after - before) / 1048576.0)
        .metric("start_ms", startMillis);
    System.out.printf("  %s heap with %s backlog: %.1f MB in use after GC, engine idle (%.1f MB before it was built);"
        + " start() after a crash %d ms; release over the whole table %.1f ms, bounded by due time %.1f ms%n",
        CASE, backlog, after / 1048576.0, before / 1048576.0, startMillis, releaseAllMicros / 1000.0,
        releaseHeldMicros / 1000.0);
    ctx.add(heap.build(), db);
    Result burn = BurnDown.herald(ctx, db, space, o.scaleDue, CASE, "burn-down/" + backlog);
    burn.settings().put("backlog", backlog);
    burn.settings().put("future_rows", futureRows);
    ctx.add(burn, db);
    Result stream = Lateness.herald(ctx, db, space, CASE, "lateness/" + backlog, o.scaleRate, o.scaleSeconds);
    stream.settings().put("backlog", backlog);
    stream.settings().put("future_rows", futureRows);
    ctx.add(stream, db);
  }

  private static void crashedIncarnation(javax.sql.DataSource ds) {
    try (java.sql.Connection c = ds.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
        "INSERT INTO herald_node (owner, node_id, started_at, heartbeat_at) VALUES (?, ?, ?, ?)")) {
      long longAgo = System.currentTimeMillis() - 60_000;
      ps.setString(1, Systems.NODE_ID + "#crashed" + System.nanoTime());
      ps.setString(2, Systems.NODE_ID);
      ps.setLong(3, longAgo);
      ps.setLong(4, longAgo);
      ps.executeUpdate();
    } catch (java.sql.SQLException e) {
      throw new BenchException("cannot record a crashed incarnation: " + e.getMessage(), e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }
}
