package dev.herald.spi;

import java.time.Instant;
import java.util.Set;

/**
 * A request to lease due notices.
 *
 * @param owner the claiming node
 * @param now the current time: leases that ended before it are free
 * @param horizon claim notices due at or before this time (now plus the look-ahead)
 * @param leaseUntil the lease the claimed rows get
 * @param limit at most this many rows
 * @param definitions only notices of these definitions; empty for all (node affinity)
 * @param shards only notices in these shards; empty for all
 */
public record Claim(
    String owner, Instant now, Instant horizon, Instant leaseUntil, int limit, Set<String> definitions,
    Set<Integer> shards) {

  public Claim {
    definitions = Set.copyOf(definitions);
    shards = Set.copyOf(shards);
  }

  /** A claim over every definition and shard. */
  public Claim(String owner, Instant now, Instant horizon, Instant leaseUntil, int limit) {
    this(owner, now, horizon, leaseUntil, limit, Set.of(), Set.of());
  }
}
