package dev.herald.engine;

import java.util.concurrent.ThreadLocalRandom;

/**
 * One life of this node under a token of its own, {@code nodeId#suffix}: what notice rows name as
 * their owner. Its state moves forward only.
 */
final class Incarnation {
  enum State {
    /** Not registered yet: nothing is claimed under it (to other nodes its rows would look dead). */
    NEW,
    /** Registered and beating: claims go under it; attempts start while its fence allows. */
    LIVE,
    /**
     * Replaced (its beat came back too late, or the clock stepped): starts nothing more, keeps
     * beating so that no other node takes over what is still running under it, and is forgotten once
     * nothing of it is held.
     */
    RETIRING,
    /**
     * Its beat was refused (older than the node timeout): other nodes may hold its notices. Starts
     * nothing more and is not beaten; forgotten once nothing of it is held.
     */
    LAPSED
  }

  final String token;
  volatile State state = State.NEW;
  /** On this node's clock: no attempt starts under it at or after this instant. */
  volatile long fencedAt;

  Incarnation(String nodeId) {
    this.token = nodeId + "#" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);
  }

  @Override
  public String toString() {
    return token + " (" + state + ")";
  }
}
