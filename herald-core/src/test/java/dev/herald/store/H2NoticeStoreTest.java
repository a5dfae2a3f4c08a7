package dev.herald.store;

import dev.herald.Herald;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on H2 in a real file, as Herald embeds it by default. */
class H2NoticeStoreTest extends NoticeReportsContract {
  @TempDir Path dir;

  private JdbcConnectionPool pool;

  /** Opened on first use: the contract's {@code @BeforeEach} runs before any of this class's. */
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
