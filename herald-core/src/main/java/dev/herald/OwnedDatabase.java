package dev.herald;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The database a {@link Herald.Builder} was given: the application's data source as it is, or a
 * pool Herald opens itself (HikariCP for a JDBC URL, H2's for the embedded file) and closes with
 * {@code pool}.
 *
 * @param pool what {@link Herald#close()} closes; null for the application's own data source
 */
record OwnedDatabase(DataSource dataSource, AutoCloseable pool) {

  /** Exactly one of the three may be given; none means the embedded H2 file {@code data/herald}. */
  static OwnedDatabase open(DataSource dataSource, Path h2File, String jdbcUrl, String user, String password,
      Consumer<HikariConfig> poolTuning) {
    if ((dataSource != null ? 1 : 0) + (h2File != null ? 1 : 0) + (jdbcUrl != null ? 1 : 0) > 1) {
      throw new InvalidInputException("dataSource", "give one of a data source, a JDBC URL or an H2 file");
    }
    if (jdbcUrl != null) {
      HikariDataSource hikari = hikariPool(jdbcUrl, user, password, poolTuning);
      return new OwnedDatabase(hikari, hikari);
    }
    if (dataSource != null) {
      return new OwnedDatabase(dataSource, null);
    }
    Path file = h2File != null ? h2File : Path.of("data", "herald");
    JdbcConnectionPool h2 = JdbcConnectionPool.create(h2Url(file), "sa", "");
    h2.setMaxConnections(32);
    return new OwnedDatabase(h2, h2::dispose);
  }

  /**
   * The pool behind {@link Herald.Builder#jdbc}. Its connection timeout is short (5 s): while the database is
   * down a caller's enqueue fails with a {@link StoreException} soon rather than hang, and the
   * engine's loops retry on their own schedules.
   */
  private static HikariDataSource hikariPool(String jdbcUrl, String jdbcUser, String jdbcPassword,
      Consumer<HikariConfig> poolTuning) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(jdbcUser);
    config.setPassword(jdbcPassword);
    config.setPoolName("herald");
    config.setMaximumPoolSize(16);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(2_000);
    // After a network cut a socket may wait forever for an answer that is not coming (the drivers'
    // default), holding up the loop that sent the query; a socket timeout makes it an error that
    // the loops retry. One minute leaves room for long business queries; tune it with pool(...).
    if (!jdbcUrl.contains("socketTimeout")) {
      if (jdbcUrl.startsWith("jdbc:postgresql:")) {
        config.addDataSourceProperty("socketTimeout", "60"); // seconds
      } else if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
        config.addDataSourceProperty("socketTimeout", "60000"); // milliseconds
      }
    }
    // Herald writes history and attempt rows in JDBC batches; pgjdbc sends a batch of INSERTs as
    // multi-row statements only when asked, which cuts the database's work per delivery by about a
    // third (herald-bench). The store reads update counts only of UPDATE and DELETE batches.
    if (jdbcUrl.startsWith("jdbc:postgresql:") && !jdbcUrl.contains("reWriteBatchedInserts")) {
      config.addDataSourceProperty("reWriteBatchedInserts", "true");
    }
    poolTuning.accept(config);
    try {
      return new HikariDataSource(config);
    } catch (RuntimeException e) { // the database is unreachable, or the URL or driver is wrong
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      String where = jdbcUrl.replaceAll("[?;].*", ""); // no properties: they may hold a password
      throw new StoreException("cannot open a connection pool to " + where + ": " + cause.getMessage(), e);
    }
  }

  /**
   * An H2 file URL. WRITE_DELAY=0 writes every commit to the file at once, so that a killed
   * process loses no acknowledged notice; DB_CLOSE_ON_EXIT=FALSE lets Herald's own shutdown
   * release its leases before the database closes.
   */
  static String h2Url(Path file) {
    return "jdbc:h2:file:" + file.toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
  }

  /** Host name and process id: unique among the nodes of a cluster. */
  static String defaultNodeId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    return host + "-" + ManagementFactory.getRuntimeMXBean().getPid();
  }
}
