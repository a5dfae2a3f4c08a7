package dev.herald.ordering;

import dev.herald.Herald;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.io.TempDir;

/** {@link OrderedDeliveryTest} on an H2 file database. */
class H2OrderedDeliveryTest extends OrderedDeliveryTest {
  @TempDir Path dir;

  @Override
  protected DataSource newDatabase() {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("ordered")), "sa", "");
    pool.setMaxConnections(32);
    toClose.add(pool::dispose);
    return pool;
  }
}
