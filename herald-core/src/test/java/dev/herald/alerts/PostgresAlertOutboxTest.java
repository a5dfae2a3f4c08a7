package dev.herald.alerts;

import dev.herald.store.DatabaseFixture;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link AlertOutboxTest} on an embedded PostgreSQL server (drains skip each other's locked rows), a schema per test. */
class PostgresAlertOutboxTest extends AlertOutboxTest {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.postgres();

  @Override
  protected DataSource newDatabase() {
    return DB.create();
  }
}
