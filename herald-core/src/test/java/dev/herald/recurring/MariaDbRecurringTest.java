package dev.herald.recurring;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RecurringTest} on MariaDB (the MySQL dialect): each test in a database of its own. */
class MariaDbRecurringTest extends RecurringTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.mariaDb().poolSize(8);

  @Override
  protected DataSource newDatabase(java.util.List<AutoCloseable> toClose) {
    return DB.create();
  }
}
