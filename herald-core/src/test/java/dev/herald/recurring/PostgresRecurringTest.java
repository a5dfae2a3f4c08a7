package dev.herald.recurring;

import dev.herald.store.TestDatabases;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RecurringTest} on PostgreSQL: each test in a schema of its own. */
class PostgresRecurringTest extends RecurringTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres server;

  @BeforeAll
  static void startServer() {
    server = TestDatabases.startPostgres();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected DataSource newDatabase(List<AutoCloseable> toClose) {
    String schema = "recurring_" + SCHEMAS.incrementAndGet();
    TestDatabases.create(TestDatabases.postgresUrl(server.getPort(), null), "postgres", "", "CREATE SCHEMA " + schema);
    var pool = TestDatabases.pool(TestDatabases.postgresUrl(server.getPort(), schema), "postgres", "",
        TestDatabases.POSTGRES_SESSION_ZONE, 8);
    toClose.add(pool);
    return pool;
  }
}
