package dev.herald.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * PostgreSQL 13 and later: ids as {@code uuid}, payload as {@code text}; claims in one {@code
 * UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING} statement; idempotency keys with {@code ON
 * CONFLICT DO NOTHING}, because a failed statement would abort the caller's whole transaction;
 * migrations under a session advisory lock.
 */
public final class PostgresDialect implements Dialect {
  /** The advisory lock key that serializes migrations: "herald" in ASCII. */
  static final long MIGRATION_LOCK = 0x68_65_72_61_6c_64L;

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public ClaimStrategy claimStrategy() {
    return ClaimStrategy.UPDATE_SKIP_LOCKED_RETURNING;
  }

  @Override
  public String insertOrderingKey() {
    return Dialect.super.insertOrderingKey() + " ON CONFLICT (ordering_key) DO NOTHING";
  }

  @Override
  public String insertIdempotencyKey() {
    return Dialect.super.insertIdempotencyKey() + " ON CONFLICT (definition, idempotency_key) DO NOTHING";
  }

  @Override
  public String lockAlerts() {
    return Dialect.super.lockAlerts() + " SKIP LOCKED";
  }

  @Override
  public String claimSelect(String columns, String filter) {
    return Dialect.super.claimSelect(columns, filter) + " FOR UPDATE SKIP LOCKED";
  }

  /**
   * FOR UPDATE re-checks a row a concurrent claim has just changed only under READ COMMITTED
   * (stricter levels fail instead), whatever the connection's default.
   */
  @Override
  public String beginReadCommitted() {
    return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
  }

  @Override
  public String text(String value) {
    return value == null || value.indexOf('\u0000') < 0 ? value : value.replace('\u0000', '\uFFFD');
  }

  @Override
  public void lockMigrations(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
      ps.setLong(1, MIGRATION_LOCK);
      ps.executeQuery().close();
    }
  }

  @Override
  public void unlockMigrations(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
      ps.setLong(1, MIGRATION_LOCK);
      ps.executeQuery().close();
    }
  }

  @Override
  public boolean archivesSetBased() {
    return true;
  }

  @Override
  public boolean copiesBulkInserts() {
    return true;
  }
}
