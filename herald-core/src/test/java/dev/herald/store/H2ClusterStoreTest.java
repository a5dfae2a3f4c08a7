package dev.herald.store;

import dev.herald.Herald;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** {@link ClusterStoreContract} (the contract plus what nodes sharing a database need) on H2. */
class H2ClusterStoreTest extends ClusterStoreContract {
  @TempDir Path dir;

  private JdbcConnectionPool pool;

  @Override
  protected DataSource dataSource() {
    if (pool == null) {
      pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("herald")), "sa", "");
      pool.setMaxConnections(16);
    }
    return pool;
  }

  @AfterEach
  void dispose() {
    if (pool != null) {
      pool.dispose();
      pool = null;
    }
  }
}
