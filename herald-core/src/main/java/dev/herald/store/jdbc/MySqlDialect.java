package dev.herald.store.jdbc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * MySQL 8 and MariaDB 10.6+ (InnoDB, utf8mb4). Ids are {@code BINARY(16)}: a UUIDv7's bytes in
 * order, so the clustered primary key grows at its end like a sequence and every secondary index
 * (which repeats the primary key) stays small; {@code CHAR(36)} would be more than twice as wide
 * and only easier to read. Claims lock candidates with {@code SELECT ... FOR UPDATE SKIP LOCKED}
 * under READ COMMITTED, then lease them with the version-checked batched update. Idempotency keys
 * go in with {@code INSERT IGNORE}: a taken key inserts nothing and raises no error (which the
 * MariaDB driver would log as a warning every time). Every value fits its column by construction, so
 * IGNORE cannot hide a truncation. Migrations run under {@code GET_LOCK}.
 */
public final class MySqlDialect implements Dialect {
  /** The migration lock's name: GET_LOCK names are server-wide, so it names the database too (64 characters at most). */
  private static final String MIGRATION_LOCK = "CONCAT('herald_migration.', LEFT(COALESCE(DATABASE(), ''), 40))";
  private static final int ER_DUP_ENTRY = 1062;
  private static final int ER_DUP_KEY = 1022;
  private static final int ER_DUP_ENTRY_WITH_KEY_NAME = 1586;

  private final boolean mariaDb;

  public MySqlDialect(boolean mariaDb) {
    this.mariaDb = mariaDb;
  }

  /** MariaDB rather than MySQL; both use the same SQL and migrations. */
  public boolean isMariaDb() {
    return mariaDb;
  }

  @Override
  public String name() {
    return "mysql";
  }

  @Override
  public ClaimStrategy claimStrategy() {
    return ClaimStrategy.LOCK_SKIP_LOCKED_THEN_UPDATE;
  }

  @Override
  public String upsertOrderingKey() {
    return "INSERT INTO herald_ordering_key (ordering_key, last_seq) VALUES (?, 1)"
        + " ON DUPLICATE KEY UPDATE last_seq = last_seq + 1";
  }

  @Override
  public String insertIdempotencyKey() {
    return Dialect.super.insertIdempotencyKey().replaceFirst("^INSERT INTO", "INSERT IGNORE INTO");
  }

  /**
   * REPEATABLE READ, the default, reads a snapshot; a locking read sees the latest committed rows.
   * MariaDB has no FOR SHARE; MySQL 8 still accepts LOCK IN SHARE MODE.
   */
  @Override
  public String readLatest() {
    return " LOCK IN SHARE MODE";
  }

  @Override
  public boolean staleWritesLockRows() {
    return true;
  }

  /** Error 1062 and its kin (a duplicate fails only its statement in InnoDB, not the transaction). */
  @Override
  public boolean isDuplicateKey(SQLException e) {
    int code = e.getErrorCode();
    return code == ER_DUP_ENTRY || code == ER_DUP_KEY || code == ER_DUP_ENTRY_WITH_KEY_NAME
        || "23000".equals(e.getSQLState()) && e.getMessage() != null && e.getMessage().contains("Duplicate entry");
  }

  /**
   * Walks the due-time index so that the scan stops after LIMIT rows: a full scan and sort would lock
   * every due row, leaving other nodes nothing to skip to.
   */
  @Override
  public String lockAlerts() {
    return Dialect.super.lockAlerts() + " SKIP LOCKED";
  }

  @Override
  public String claimSelect(String columns, String filter) {
    return "SELECT " + columns + " FROM herald_notice FORCE INDEX (herald_notice_due) WHERE " + filter
        + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED";
  }

  /**
   * Under REPEATABLE READ (InnoDB's default) the claim's locking scan would also take gap locks and
   * hold up inserts of new notices, and releasing a node's leases (an update by owner, which no
   * index serves) would lock every row it reads and deadlock with other nodes' work; READ COMMITTED
   * locks only the rows that match.
   */
  @Override
  public String beginReadCommitted() {
    return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
  }

  @Override
  public void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
    if (id == null) {
      ps.setNull(index, java.sql.Types.BINARY);
      return;
    }
    ps.setBytes(index, ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
        .putLong(id.getLeastSignificantBits()).array());
  }

  @Override
  public UUID getId(ResultSet rs, String column) throws SQLException {
    byte[] b = rs.getBytes(column);
    if (b == null) {
      return null;
    }
    ByteBuffer buf = ByteBuffer.wrap(b);
    return new UUID(buf.getLong(), buf.getLong());
  }

  @Override
  public void lockMigrations(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(" + MIGRATION_LOCK + ", 300)");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next() || rs.getInt(1) != 1) {
        throw new SQLException("could not take the migration lock (GET_LOCK) within 300 s");
      }
    }
  }

  @Override
  public void unlockMigrations(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(" + MIGRATION_LOCK + ")")) {
      ps.executeQuery().close();
    }
  }
}
