package dev.herald.store.jdbc;

import java.sql.Connection;
import java.util.concurrent.locks.ReentrantLock;

/** H2 2.x: no SKIP LOCKED, so claims select candidates and lease them with a version check. */
public final class H2Dialect implements Dialect {
  /**
   * An H2 file is open in one process at a time, so engines starting together share a JVM: a lock
   * in the JVM keeps them from migrating at once.
   */
  private static final ReentrantLock MIGRATION_LOCK = new ReentrantLock();

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public ClaimStrategy claimStrategy() {
    return ClaimStrategy.SELECT_THEN_UPDATE;
  }

  @Override
  public void lockMigrations(Connection c) {
    MIGRATION_LOCK.lock();
  }

  @Override
  public void unlockMigrations(Connection c) {
    if (MIGRATION_LOCK.isHeldByCurrentThread()) {
      MIGRATION_LOCK.unlock();
    }
  }
}
