package dev.herald.spi;

import java.time.Instant;

/**
 * A request to lease due notices.
 *
 * @param owner the claiming node
 * @param now the current time: leases that ended before it are free
 * @param horizon claim notices due at or before this time (now plus the look-ahead)
 * @param leaseUntil the lease the claimed rows get
 * @param limit at most this many rows
 */
public record Claim(String owner, Instant now, Instant horizon, Instant leaseUntil, int limit) {}
