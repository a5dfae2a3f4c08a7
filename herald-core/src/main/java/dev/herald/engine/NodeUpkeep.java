package dev.herald.engine;

import dev.herald.spi.Change;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The node's scheduled upkeep: the heartbeat (and what a lapsed one means), revocations other
 * nodes asked for, the backlog count for flow control, and housekeeping (definitions, silent nodes,
 * old requests, history past its retention).
 */
final class NodeUpkeep extends EnginePart {

  NodeUpkeep(EngineCore core) {
    super(core);
  }

  /**
   * Proves this node alive, or finds that it lapsed (the database was away, or the process paused,
   * longer than the node timeout) and drops what it held under the lapsed incarnation; then lets go
   * of the notices operators on other nodes asked for. Catches everything: a scheduled task that
   * throws never runs again.
   */
  void heartbeat() {
    try {
      if (!liveness.beat()) {
        int dropped = holdings.dropUnstartedNotOwnedBy(liveness.token());
        listeners.onEngineError("heartbeat", new dev.herald.HeraldException("node " + settings.nodeId()
            + " missed its heartbeats for longer than the node timeout; other nodes may have taken over its"
            + " notices; continuing as " + liveness.token() + " (" + dropped + " held notice(s) dropped)"));
        log.warn("Herald node {}: heartbeat lapsed; continuing as {}, dropped {} held notice(s)",
            settings.nodeId(), liveness.token(), dropped);
        requestPoll();
      }
      revocations();
      holdings.expireSupersessions(clock.millis() - 60_000);
    } catch (Throwable e) {
      listeners.onEngineError("heartbeat", e);
      log.warn("Herald node {}: heartbeat failed: {}", settings.nodeId(), e.toString());
    }
  }

  /** Lets go of the unstarted notices that operators on other nodes asked for; running ones wait for their outcome. */
  private void revocations() {
    List<UUID> asked = store.revocationsFor(liveness.token());
    if (asked.isEmpty()) {
      return;
    }
    List<Change> releases = new ArrayList<>();
    List<UUID> answered = new ArrayList<>();
    Instant now = clock.instant();
    for (UUID id : asked) {
      Holdings.Taken taken = holdings.take(id);
      Holdings.TakeBack r = taken.result();
      if (r == Holdings.TakeBack.TAKEN) {
        releases.add(Transitions.release(taken.notice().row, now));
      }
      if (r != Holdings.TakeBack.BUSY) {
        answered.add(id);
      }
    }
    releaseQuietly(releases, "let go of revoked notices");
    store.clearRevocations(answered);
  }

  void countBacklog() {
    try {
      core.dueBacklog = store.countDue(clock.instant(), settings.maxBacklog() + 1);
    } catch (Throwable e) {
      listeners.onEngineError("count backlog", e);
    }
  }

  void housekeeping() {
    try {
      waiters.expire(Duration.ofHours(1).toMillis());
      definitions.reload();
      store.forgetSilentNodes(clock.instant().minus(Duration.ofHours(1)));
      store.purgeRequests(clock.instant().minus(Duration.ofDays(1)));
      Instant before = clock.instant().minus(settings.historyRetention());
      int purged;
      int total = 0;
      do {
        purged = store.purgeHistory(before, 1_000);
        total += purged;
      } while (purged == 1_000 && isRunning());
      if (total > 0) {
        log.info("Herald node {}: purged {} finished notice(s) older than {}", settings.nodeId(), total, before);
      }
    } catch (Throwable e) {
      listeners.onEngineError("housekeeping", e);
      log.warn("Herald node {}: housekeeping failed: {}", settings.nodeId(), e.getMessage());
    }
  }

  /** Purges history now (what housekeeping does on its own schedule); returns how many were purged. */
  int purgeHistoryNow() {
    Instant before = clock.instant().minus(settings.historyRetention());
    int total = 0;
    int purged;
    do {
      purged = store.purgeHistory(before, 1_000);
      total += purged;
    } while (purged == 1_000);
    return total;
  }
}
