package dev.herald.events;

import dev.herald.Herald;
import dev.herald.store.DatabaseFixture;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link EventsTest} on the test JVM's MariaDB server (the MySQL dialect: INSERT IGNORE, binary keys), a database per test. */
class MariaDbEventsTest extends EventsTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.mariaDb().poolSize(8);

  @Override
  protected Herald.Builder database(Herald.Builder b) {
    return b.dataSource(DB.create());
  }
}
