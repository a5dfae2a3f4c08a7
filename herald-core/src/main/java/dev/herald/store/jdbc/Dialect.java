package dev.herald.store.jdbc;

import dev.herald.StoreException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What differs between databases. The store's SQL is otherwise portable (LIMIT/OFFSET, epoch-millis
 * BIGINT times, no time-zone types).
 */
public interface Dialect {

  /** The folder under {@code db/herald/} holding this database's migrations. */
  String name();

  /** How the claim finds and leases rows; see {@link ClaimStrategy}. */
  ClaimStrategy claimStrategy();

  /** Whether the exception is a unique-key violation. */
  default boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /**
   * The statement recording an idempotency key (parameters: definition, key, notice id, created
   * at). It either inserts one row, or inserts none or fails with a duplicate key (see {@link
   * #isDuplicateKey}) when the key is taken; either way the caller's transaction must stay usable.
   */
  default String insertIdempotencyKey() {
    return "INSERT INTO herald_idempotency (definition, idempotency_key, notice_id, created_at) VALUES (?, ?, ?, ?)";
  }

  /**
   * The statement creating an ordering key's counter at 1 (parameter: the key). Like {@link
   * #insertIdempotencyKey}, it inserts one row, or none or fails with a duplicate key when the
   * counter exists, and leaves the caller's transaction usable.
   */
  default String insertOrderingKey() {
    return "INSERT INTO herald_ordering_key (ordering_key, last_seq) VALUES (?, 1)";
  }

  /**
   * One statement that creates an ordering key's counter at 1 or adds 1 to it (parameter: the key),
   * or null where {@link #insertOrderingKey} after an update that found nothing is used instead. InnoDB
   * needs it: an update that finds no row takes a lock on the gap where the row would go, and two
   * transactions numbering a new key that way each wait for the other's gap to insert: a deadlock.
   */
  default String upsertOrderingKey() {
    return null;
  }

  /**
   * Appended to a SELECT so that it reads the latest committed rows rather than the transaction's
   * snapshot (a shared-lock read); empty where the default isolation, READ COMMITTED, reads them
   * anyway. Finds an idempotency key that a concurrent transaction committed after the caller's
   * snapshot began.
   */
  default String readLatest() {
    return "";
  }

  /**
   * Whether a version-checked UPDATE or DELETE locks the row it reads even when the version no
   * longer matches (InnoDB at REPEATABLE READ, its default). PostgreSQL and H2 lock only rows that
   * match, so a stale change waits for nothing.
   */
  default boolean staleWritesLockRows() {
    return false;
  }

  /**
   * The claim's candidate query, locking what it returns where the strategy needs it: {@code
   * columns}, then the filter, then {@code LIMIT ?}.
   */
  default String claimSelect(String columns, String filter) {
    return "SELECT " + columns + " FROM herald_notice WHERE " + filter + " ORDER BY due_at LIMIT ?";
  }

  /**
   * The alert drain's query: the oldest waiting alerts, {@code LIMIT ?}, locked; where the database
   * can, rows another drain has locked are skipped rather than waited for.
   */
  default String lockAlerts() {
    return "SELECT id, notice_id, definition, endpoint, failures, final_failure, error, raised_at FROM herald_alert"
        + " ORDER BY id LIMIT ? FOR UPDATE";
  }

  /**
   * A statement that makes the transaction it starts READ COMMITTED (that transaction only), for
   * the claim and the release of a node's leases; null where that is already how they behave.
   */
  default String beginReadCommitted() {
    return null;
  }

  default void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setObject(index, id);
  }

  default UUID getId(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  /**
   * Whether finished notices are archived in one set-based statement (delete the live rows and
   * insert their history rows from what was deleted) instead of two batches that send every payload
   * back. Needs arrays and data-modifying CTEs.
   */
  default boolean archivesSetBased() {
    return false;
  }

  /** Text as the database can store it (PostgreSQL refuses the NUL character). */
  default String text(String value) {
    return value;
  }

  /**
   * Whether many live rows are written by {@code COPY ... FROM STDIN} ({@link PgCopyIn}) instead of
   * multi-row inserts: PostgreSQL through its own driver.
   */
  default boolean copiesBulkInserts() {
    return false;
  }

  /**
   * Takes the lock that lets one node at a time migrate, on the connection that will migrate. Nodes
   * starting together then apply each script once; the others wait and find it applied.
   */
  default void lockMigrations(Connection c) throws SQLException {}

  /** Releases what {@link #lockMigrations} took. Called with auto-commit on. */
  default void unlockMigrations(Connection c) throws SQLException {}

  /** Picks the dialect from the database product name. */
  static Dialect detect(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return of(c.getMetaData());
    } catch (SQLException e) {
      throw new StoreException("cannot connect to detect the database: " + e.getMessage(), e);
    }
  }

  /** The dialect of the database these metadata describe; refuses versions without what Herald needs. */
  static Dialect of(DatabaseMetaData meta) throws SQLException {
    String product = meta.getDatabaseProductName();
    String lower = product.toLowerCase(Locale.ROOT);
    String version = meta.getDatabaseProductVersion();
    int major = meta.getDatabaseMajorVersion();
    int minor = meta.getDatabaseMinorVersion();
    if (lower.contains("h2")) {
      return new H2Dialect();
    }
    if (lower.contains("postgresql")) {
      // SKIP LOCKED arrived in 9.5; Herald is tested on 13 and later.
      requireAtLeast(major, minor, 9, 5, "PostgreSQL", version);
      return new PostgresDialect();
    }
    boolean mariaDb = lower.contains("mariadb") || version.toLowerCase(Locale.ROOT).contains("mariadb");
    if (mariaDb) {
      // Through a MySQL driver, MariaDB before 11 reports "5.5.5-10.6.12-MariaDB": read the real version.
      java.util.regex.Matcher real = java.util.regex.Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB",
          java.util.regex.Pattern.CASE_INSENSITIVE).matcher(version);
      if (real.find()) {
        major = Integer.parseInt(real.group(1));
        minor = Integer.parseInt(real.group(2));
      }
      requireAtLeast(major, minor, 10, 6, "MariaDB", version);
      return new MySqlDialect(true);
    }
    if (lower.contains("mysql")) {
      requireAtLeast(major, minor, 8, 0, "MySQL", version);
      return new MySqlDialect(false);
    }
    throw new IllegalArgumentException("Herald has no dialect for database '" + product
        + "'; supported: H2, PostgreSQL 13+, MySQL 8+, MariaDB 10.6+");
  }

  private static void requireAtLeast(int major, int minor, int needMajor, int needMinor, String product,
      String version) {
    if (major < needMajor || major == needMajor && minor < needMinor) {
      throw new IllegalArgumentException("Herald needs " + product + " " + needMajor + "." + needMinor
          + " or later (for SELECT ... FOR UPDATE SKIP LOCKED); this server is " + version);
    }
  }
}
