package dev.herald.engine;

import dev.herald.NoticeDefinition;
import dev.herald.spi.Change;
import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The poller: leases due notices (due within the look-ahead) in batches into the timer, at once
 * again while whole batches come back, else every poll interval or when woken; backs off while the
 * database fails.
 */
final class ClaimLoop extends EnginePart {
  /** Longest wait between claims while the database fails (unless the poll interval is longer). */
  private static final long MAX_POLL_BACKOFF_MS = 5_000;

  ClaimLoop(EngineCore core) {
    super(core);
  }

  void pollLoop() {
    long backoff = settings.pollInterval().toMillis();
    long lastClaim = System.nanoTime();
    while (isRunning()) {
      long wait = settings.pollInterval().toMillis();
      try {
        int asked = Math.min(settings.claimBatch(), room.availablePermits());
        if (asked == 0 || asked < smallestClaim() && System.nanoTime() - lastClaim < settings.pollInterval().toNanos()) {
          wait = 10; // (nearly) full: look again as room frees up
        } else if (timer.backlogged(clock.millis(), 4 * settings.claimBatch())) {
          // Behind: due notices wait in memory for delivery slots. Claiming more would only add to
          // that queue, while reading the due index past every notice held.
          wait = 10;
        } else {
          lastClaim = System.nanoTime();
          Instant now = clock.instant();
          int got = claimInto(now, now.plus(settings.lookAhead()), asked);
          backoff = settings.pollInterval().toMillis();
          if (got == asked) {
            wait = 0; // more may be due: claim again at once
          }
        }
      } catch (RuntimeException e) { // a StoreException while the database is away; anything else must not end the loop either
        listeners.onEngineError("claim", e);
        log.warn("Herald node {}: claim failed, retrying in {} ms: {}", settings.nodeId(), backoff, e.getMessage());
        wait = backoff;
        // Capped like the writer's retries, so that delivery resumes within seconds of the database's return.
        backoff = Math.min(backoff * 2, Math.max(MAX_POLL_BACKOFF_MS, settings.pollInterval().toMillis()));
      }
      if (wait > 0) {
        synchronized (core.pollSignal) {
          try {
            if (!core.pollRequested && isRunning()) {
              core.pollSignal.wait(wait);
            }
          } catch (InterruptedException e) {
            return;
          }
          core.pollRequested = false;
        }
      }
    }
  }

  /**
   * The fewest free places worth a claim while the node is nearly full (smaller ones wait for more
   * room, or for the poll interval). A claim reads the due index past every notice this node already
   * holds, which are the earliest due: on a node holding thousands, claims of a few rows each, as
   * fast as deliveries freed places, cost the embedded H2 a third of the CPU of a webhook burn-down.
   */
  private int smallestClaim() {
    return Math.max(1, Math.min(settings.claimBatch(), settings.maxHeld()) / 4);
  }

  /** Leases up to {@code limit} notices due by {@code horizon} into the timer; returns how many. */
  int claimInto(Instant now, Instant horizon, int limit) {
    if (!room.tryAcquire(limit)) {
      return 0;
    }
    List<NoticeRow> rows;
    try {
      rows = store.claim(new Claim(liveness.token(), now, liveness.aliveSince(now.toEpochMilli()), horizon,
          now.plus(settings.nodeTimeout()), limit, settings.definitions(), settings.shards()));
    } catch (Throwable e) {
      room.release(limit);
      if (isRunning()) {
        abandonIncarnation("claim");
      }
      throw e;
    }
    room.release(limit - rows.size());
    List<Change> giveBack = new ArrayList<>();
    for (NoticeRow row : rows) {
      try {
        // A notice whose definition was deleted is held too: its attempt fails it (DEAD) without a channel.
        NoticeDefinition def = definitions.find(row.notice().definition()).orElse(null);
        if (!holdings.add(new HeldNotice(row, def))) {
          giveBack.add(Transitions.release(row, now)); // still held from an earlier claim, or reserved by an operator
        }
      } catch (Throwable t) { // every claimed row must end in memory or released, never leased and forgotten
        room.release();
        giveBack.add(Transitions.release(row, now));
        listeners.onEngineError("hold claimed notice", t);
      }
    }
    releaseQuietly(giveBack, "release notices this node cannot hold");
    return rows.size();
  }
}
