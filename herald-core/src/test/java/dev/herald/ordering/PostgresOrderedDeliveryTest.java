package dev.herald.ordering;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OrderedDeliveryTest} on an embedded PostgreSQL server, a schema per test. */
class PostgresOrderedDeliveryTest extends OrderedDeliveryTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.postgres();

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }
}
