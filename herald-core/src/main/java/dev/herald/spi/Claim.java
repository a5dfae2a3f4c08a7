package dev.herald.spi;

import java.time.Instant;
import java.util.Set;

/**
 * A request to lease due notices.
 *
 * @param owner the claiming node's incarnation token
 * @param now the current time
 * @param aliveSince a notice held by a node whose heartbeat is older than this is free (its node is dead)
 * @param horizon claim notices due at or before this time (now plus the look-ahead)
 * @param leaseUntil recorded with the claimed rows (informational: a live owner's hold does not expire)
 * @param limit at most this many rows
 * @param definitions only notices of these definitions; empty for all (node affinity)
 * @param shards only notices in these shards; empty for all
 */
public record Claim(
    String owner, Instant now, Instant aliveSince, Instant horizon, Instant leaseUntil, int limit,
    Set<String> definitions, Set<Integer> shards) {

  public Claim {
    definitions = Set.copyOf(definitions);
    shards = Set.copyOf(shards);
  }

  /** A claim over every definition and shard, counting nodes that beat at or after {@code now} as alive. */
  public Claim(String owner, Instant now, Instant horizon, Instant leaseUntil, int limit) {
    this(owner, now, now, horizon, leaseUntil, limit, Set.of(), Set.of());
  }

  /** A claim counting nodes that beat at or after {@code now} as alive. */
  public Claim(String owner, Instant now, Instant horizon, Instant leaseUntil, int limit, Set<String> definitions,
      Set<Integer> shards) {
    this(owner, now, now, horizon, leaseUntil, limit, definitions, shards);
  }
}
