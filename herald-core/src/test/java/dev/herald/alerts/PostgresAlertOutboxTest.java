package dev.herald.alerts;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.TestDatabases;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link AlertOutboxTest} on an embedded PostgreSQL server (drains skip each other's locked rows), a schema per test. */
class PostgresAlertOutboxTest extends AlertOutboxTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres server;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.startPostgres();
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected DataSource newDatabase() {
    String schema = "alerts" + SCHEMAS.incrementAndGet();
    TestDatabases.create(TestDatabases.postgresUrl(server.getPort(), null), "postgres", "", "CREATE SCHEMA " + schema);
    HikariDataSource pool = TestDatabases.pool(TestDatabases.postgresUrl(server.getPort(), schema), "postgres", "",
        TestDatabases.POSTGRES_SESSION_ZONE, 16);
    toClose.add(pool);
    return pool;
  }
}
