package dev.herald.store.jdbc;

/** How a dialect leases due rows. */
public enum ClaimStrategy {
  /**
   * Select due, unleased rows, then lease each with {@code UPDATE ... WHERE id = ? AND version = ?
   * AND lease_until < now}; rows another node leased (or its owner renewed) in between update
   * nothing and are skipped. Portable; under contention nodes may race for the same rows, but never
   * both win one.
   */
  SELECT_THEN_UPDATE
}
