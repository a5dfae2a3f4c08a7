package dev.herald.guarantees;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.TestDatabases;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link GuaranteesTest} on an embedded PostgreSQL server, in a schema of its own. */
class PostgresGuaranteesTest extends GuaranteesTest {
  private static EmbeddedPostgres server;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.startPostgres();
    TestDatabases.create(TestDatabases.postgresUrl(server.getPort(), null), "postgres", "", "CREATE SCHEMA guarantees");
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected String database() {
    return "PostgreSQL";
  }

  @Override
  protected HikariDataSource newPool() {
    return TestDatabases.pool(TestDatabases.postgresUrl(server.getPort(), "guarantees") + "&reWriteBatchedInserts=true",
        "postgres", "", TestDatabases.POSTGRES_SESSION_ZONE, 16);
  }
}
