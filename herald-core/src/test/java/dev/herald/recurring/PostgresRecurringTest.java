package dev.herald.recurring;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RecurringTest} on PostgreSQL: each test in a schema of its own. */
class PostgresRecurringTest extends RecurringTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.postgres().poolSize(8);

  @Override
  protected DataSource newDatabase(java.util.List<AutoCloseable> toClose) {
    return DB.create();
  }
}
