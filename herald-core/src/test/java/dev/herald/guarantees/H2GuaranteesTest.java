package dev.herald.guarantees;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.Herald;
import dev.herald.store.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link GuaranteesTest} on one embedded H2 file database that the in-process nodes share, each through its own pool. */
class H2GuaranteesTest extends GuaranteesTest {
  @TempDir Path dir;

  @Override
  protected String database() {
    return "H2";
  }

  @Override
  protected HikariDataSource newPool() {
    return TestDatabases.pool(Herald.Builder.h2Url(dir.resolve("guarantees")), "sa", "", null, 16);
  }
}
