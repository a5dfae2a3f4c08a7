package dev.herald.store;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract on H2 in a real file, as Herald embeds it by default. */
class H2NoticeStoreTest extends NoticeReportsContract {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.h2();

  @Override
  protected DataSource dataSource() {
    return DB.current();
  }
}
