package dev.herald.store.jdbc;

/**
 * How a dialect claims due rows: unowned, or held by a dead node (no heartbeat within the node
 * timeout) once their short {@code lease_until} has passed. Every strategy ends in an update that
 * checks the row's version.
 */
public enum ClaimStrategy {
  /**
   * Select due, free rows, then take each with {@code UPDATE ... WHERE id = ? AND version = ? AND
   * lease_until < now}; rows another node took in between update nothing and are skipped. Portable; under contention nodes may race for the same rows, but never
   * both win one. H2.
   */
  SELECT_THEN_UPDATE,

  /**
   * One statement: {@code UPDATE herald_notice n SET ... WHERE n.id = ANY(ARRAY(SELECT id FROM
   * herald_notice WHERE <due and free> ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED)) AND
   * n.lease_until < ? RETURNING ...}; the lock holds each row's version. Rows another claimer has locked are
   * skipped rather than waited for, so concurrent nodes take disjoint batches in one round trip.
   * PostgreSQL.
   */
  UPDATE_SKIP_LOCKED_RETURNING,

  /**
   * In one transaction: {@code SELECT ... WHERE <due and free> ORDER BY due_at LIMIT ? FOR UPDATE
   * SKIP LOCKED}, then the batched {@code UPDATE ... WHERE id = ? AND version = ? AND lease_until <
   * ?} of {@link #SELECT_THEN_UPDATE}. MySQL 8 and MariaDB 10.6+, which have SKIP LOCKED but no
   * UPDATE ... RETURNING.
   */
  LOCK_SKIP_LOCKED_THEN_UPDATE
}
