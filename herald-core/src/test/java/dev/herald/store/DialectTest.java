package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.store.jdbc.ClaimStrategy;
import dev.herald.store.jdbc.Dialect;
import dev.herald.store.jdbc.H2Dialect;
import dev.herald.store.jdbc.MySqlDialect;
import dev.herald.store.jdbc.PostgresDialect;
import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** {@link Dialect#of} picks the dialect from what the driver reports, and refuses servers without SKIP LOCKED. */
class DialectTest {

  private static DatabaseMetaData meta(String product, String version, int major, int minor) {
    return (DatabaseMetaData) Proxy.newProxyInstance(DialectTest.class.getClassLoader(),
        new Class<?>[] {DatabaseMetaData.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getDatabaseProductName" -> product;
          case "getDatabaseProductVersion" -> version;
          case "getDatabaseMajorVersion" -> major;
          case "getDatabaseMinorVersion" -> minor;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void recognisesEachDatabaseByItsProductName() throws SQLException {
    assertThat(Dialect.of(meta("H2", "2.5.252 (2025-10-01)", 2, 5))).isInstanceOf(H2Dialect.class);
    assertThat(Dialect.of(meta("PostgreSQL", "14.22", 14, 22))).isInstanceOf(PostgresDialect.class);
    assertThat(Dialect.of(meta("MySQL", "8.0.36", 8, 0)))
        .isInstanceOfSatisfying(MySqlDialect.class, d -> assertThat(d.isMariaDb()).isFalse());
    assertThat(Dialect.of(meta("MariaDB", "11.4.5-MariaDB", 11, 4)))
        .isInstanceOfSatisfying(MySqlDialect.class, d -> assertThat(d.isMariaDb()).isTrue());
    // MariaDB 10.x through MySQL Connector/J: product "MySQL", version prefixed with 5.5.5
    assertThat(Dialect.of(meta("MySQL", "5.5.5-10.6.12-MariaDB-1:10.6.12+maria~ubu2004", 5, 5)))
        .isInstanceOfSatisfying(MySqlDialect.class, d -> assertThat(d.isMariaDb()).isTrue());
  }

  @Test
  void eachServerDialectClaimsWithSkipLocked() {
    assertThat(new PostgresDialect().claimStrategy()).isEqualTo(ClaimStrategy.UPDATE_SKIP_LOCKED_RETURNING);
    assertThat(new MySqlDialect(false).claimStrategy()).isEqualTo(ClaimStrategy.LOCK_SKIP_LOCKED_THEN_UPDATE);
    assertThat(new MySqlDialect(false).claimSelect("id", "due_at <= ?")).endsWith("FOR UPDATE SKIP LOCKED");
    assertThat(new PostgresDialect().claimSelect("id", "due_at <= ?")).endsWith("FOR UPDATE SKIP LOCKED");
    assertThat(new H2Dialect().claimStrategy()).isEqualTo(ClaimStrategy.SELECT_THEN_UPDATE);
  }

  @Test
  void refusesServersWithoutSkipLockedAndUnknownDatabases() {
    assertThatThrownBy(() -> Dialect.of(meta("PostgreSQL", "9.4.26", 9, 4)))
        .hasMessageContaining("PostgreSQL 9.5 or later");
    assertThatThrownBy(() -> Dialect.of(meta("MySQL", "5.7.44", 5, 7))).hasMessageContaining("MySQL 8.0 or later");
    assertThatThrownBy(() -> Dialect.of(meta("MySQL", "5.5.5-10.5.9-MariaDB", 5, 5)))
        .hasMessageContaining("MariaDB 10.6 or later");
    assertThatThrownBy(() -> Dialect.of(meta("Oracle", "19c", 19, 0)))
        .hasMessageContaining("no dialect for database 'Oracle'");
  }
}
