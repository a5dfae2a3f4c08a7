package dev.herald.engine;

import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * This node's claim to be alive. Each start (and each recovery from a lapse) is an incarnation with
 * a token of its own, {@code nodeId#suffix}, which is what notice rows name as their owner. The
 * heartbeat refreshes the token's row; other nodes take over the notices of a token whose row is
 * older than {@code nodeTimeout}. So that they never deliver a notice this node is still
 * delivering, this node <em>fences</em> itself: it starts no attempt later than three quarters of
 * {@code nodeTimeout} after its last successful beat (the quarter left is the allowance for clock
 * skew and for the instant between the check and the channel call).
 *
 * <p>A token whose beat lapsed is never revived: other nodes may already hold its notices, and
 * this node no longer knows which of them it still holds. It takes a new token instead.
 */
final class Liveness {
  private final NoticeStore store;
  private final Clock clock;
  private final String nodeId;
  private final long timeoutMillis;
  private volatile String token;
  /** On this node's clock: no attempt starts at or after this instant. */
  private volatile long fencedAt;
  private volatile boolean registered;

  Liveness(NoticeStore store, Clock clock, String nodeId, java.time.Duration nodeTimeout) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.timeoutMillis = nodeTimeout.toMillis();
    this.token = newToken(nodeId);
  }

  private static String newToken(String nodeId) {
    return nodeId + "#" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);
  }

  /** The token of the current incarnation: the owner written on the notices this node claims. */
  String token() {
    return token;
  }


  /** Registers the current incarnation; it counts as alive from now. */
  void register() {
    String current = token;
    long now = clock.millis();
    store.registerNode(current, nodeId, Instant.ofEpochMilli(now));
    synchronized (this) {
      if (current.equals(token)) { // else abandoned meanwhile: the next beat registers the newer token
        fencedAt = now + fenceAfter();
        registered = true;
      }
    }
  }

  /**
   * Writes a heartbeat. Returns false if the token had lapsed: the caller must drop what it holds
   * under the old token; a new incarnation is registered here.
   */
  boolean beat() {
    if (!registered) {
      register(); // after abandon(): what was held under the old token is dropped by the caller already
      return true;
    }
    // The token is read once: abandon() may replace it on the poller while this write is on its way.
    String current = token;
    long now = clock.millis();
    boolean refreshed = store.heartbeat(current, Instant.ofEpochMilli(now), Instant.ofEpochMilli(now - timeoutMillis));
    synchronized (this) {
      if (!current.equals(token)) {
        return true; // abandoned meanwhile: its caller dropped what it held, and the next beat registers
      }
      // Until the write lands, other nodes still see the previous beat. One that landed after this
      // node's fence (a stalled database, a pause mid-write) may have come after a takeover.
      if (refreshed && clock.millis() < fencedAt) {
        fencedAt = now + fenceAfter();
        return true;
      }
      fencedAt = 0; // nothing more starts under the old token
      token = newToken(nodeId);
    }
    String lapsed = current;
    register();
    try {
      store.forgetNode(lapsed);
    } catch (RuntimeException e) {
      // its row is stale either way; housekeeping forgets it later
    }
    return false;
  }

  /**
   * Gives up the current incarnation without the database: a claim or adoption whose commit is in
   * doubt (the connection failed mid-commit) may have left rows under this token that no one holds
   * in memory. Under a new token those rows belong to a node that stops beating, so any node takes
   * them over after the node timeout. The new token registers at the next beat.
   */
  synchronized void abandon() {
    fencedAt = 0;
    token = newToken(nodeId);
    registered = false;
  }

  /** Whether an attempt may start now for a notice held under {@code owner}. */
  boolean mayStart(String owner, long nowMillis) {
    return nowMillis < fencedAt && token.equals(owner);
  }

  /** Nodes that beat at or after this instant are alive. */
  Instant aliveSince(long nowMillis) {
    return Instant.ofEpochMilli(nowMillis - timeoutMillis);
  }

  private long fenceAfter() {
    return timeoutMillis * 3 / 4;
  }
}
