package dev.herald.engine;

import dev.herald.EngineSettings;
import dev.herald.NoticeDefinition;
import dev.herald.StoreException;
import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first stage, claim: the poller. Leases due notices (due within the look-ahead) in batches into
 * {@link Ownership}'s memory, at once again while whole batches come back, else every poll interval
 * or when woken; reconciles first when ownership is in doubt; backs off while the database fails.
 */
final class Claimer {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);
  /** Longest wait between claims while the database fails (unless the poll interval is longer). */
  private static final long MAX_POLL_BACKOFF_MS = 5_000;

  private final EngineSettings settings;
  private final NoticeStore store;
  private final Clock clock;
  private final Ownership ownership;
  private final DefinitionCache definitions;
  private final Listeners listeners;
  private final PollSignal signal;
  private final BooleanSupplier running;

  Claimer(EngineSettings settings, NoticeStore store, Clock clock, Ownership ownership, DefinitionCache definitions,
      Listeners listeners, PollSignal signal, BooleanSupplier running) {
    this.settings = settings;
    this.store = store;
    this.clock = clock;
    this.ownership = ownership;
    this.definitions = definitions;
    this.listeners = listeners;
    this.signal = signal;
    this.running = running;
  }

  /** The poller thread's loop, until the engine stops. */
  void run() {
    long backoff = settings.pollInterval().toMillis();
    long lastClaim = System.nanoTime();
    while (running.getAsBoolean()) {
      long wait = settings.pollInterval().toMillis();
      try {
        ownership.answerRevocations();
        ownership.reconcile();
        int asked = Math.min(settings.claimBatch(), ownership.freeRoom());
        if (asked == 0 || asked < smallestClaim() && System.nanoTime() - lastClaim < settings.pollInterval().toNanos()) {
          wait = 10; // (nearly) full: look again as room frees up
        } else if (ownership.timer().backlogged(clock.millis(), 4 * settings.claimBatch())) {
          // Behind: due notices wait in memory for delivery slots. Claiming more would only add to
          // that queue, while reading the due index past every notice held.
          wait = 10;
        } else {
          lastClaim = System.nanoTime();
          Instant now = clock.instant();
          int got = claim(now, now.plus(settings.lookAhead()), asked);
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
      if (wait > 0 && running.getAsBoolean()) {
        try {
          signal.await(wait);
        } catch (InterruptedException e) {
          return;
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

  /**
   * Leases up to {@code limit} notices due by {@code horizon} into memory; returns how many. Claims
   * nothing while the current incarnation is not registered. A claim whose answer was lost (it may
   * have committed) leaves ownership in doubt; one that failed before committing leaves nothing.
   */
  int claim(Instant now, Instant horizon, int limit) {
    return claim(ownership.claimToken(), now, horizon, limit);
  }

  /** {@link #claim(Instant, Instant, int)} under {@code token}; nothing if it is null. */
  int claim(String token, Instant now, Instant horizon, int limit) {
    if (token == null || !ownership.reserve(limit)) {
      return 0;
    }
    List<NoticeRow> rows;
    try {
      rows = store.claim(new Claim(token, now, now.minus(settings.nodeTimeout()), horizon,
          now.plus(settings.nodeTimeout()), limit, settings.definitions(), settings.shards()));
    } catch (Throwable e) {
      ownership.unreserve(limit);
      if (!(e instanceof StoreException se) || se.outcomeUnknown()) {
        ownership.doubtClaims();
      }
      throw e;
    }
    ownership.unreserve(limit - rows.size());
    if (Trace.on()) {
      Trace.log("claimed under {}: {}", token, Trace.rows(rows));
    }
    List<NoticeRow> giveBack = new ArrayList<>();
    for (NoticeRow row : rows) {
      try {
        // A notice whose definition was deleted is held too: its attempt fails it (DEAD) without a channel.
        NoticeDefinition def = definitions.find(row.notice().definition()).orElse(null);
        if (!ownership.hold(row, def)) {
          giveBack.add(row); // superseded meanwhile, or its incarnation retired
        }
      } catch (Throwable t) { // every claimed row must end in memory or released, never leased and forgotten
        ownership.unreserve(1);
        giveBack.add(row);
        listeners.onEngineError("hold claimed notice", t);
      }
    }
    ownership.release(giveBack, "release notices this node cannot hold");
    return rows.size();
  }
}
