package dev.herald.ordering;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OrderedDeliveryTest} on an H2 file database. */
class H2OrderedDeliveryTest extends OrderedDeliveryTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.h2().poolSize(32);

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }
}
