package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * A transaction whose rollback fails is not committed by restoring auto-commit afterwards (JDBC commits
 * what is open when auto-commit is turned back on): the caller's failed work never lands.
 */
class FailedRollbackTest {
  @Test
  void aBusinessTransactionWhoseRollbackFailsIsNotCommitted() throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:failed-rollback-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    AtomicBoolean failRollback = new AtomicBoolean();
    DataSource ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (self, m, args) -> {
          Object r = invoke(h2, m, args);
          return r instanceof Connection c ? rollbackMayFail(c, failRollback) : r;
        });
    try (Herald herald = Herald.builder().dataSource(ds)
        .define(NoticeDefinition.builder("orders").handler("noop").build())
        .handler("noop", ctx -> DeliveryResult.delivered())
        .build()) {
      failRollback.set(true);
      assertThatThrownBy(() -> herald.inTransaction(tx -> {
        tx.enqueue(NoticeRequest.of("orders", "{\"order\":1}"));
        throw new IllegalStateException("the business step failed");
      })).hasMessageContaining("the business step failed");
      failRollback.set(false);

      try (Connection c = h2.getConnection();
          ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM herald_notice")) {
        rs.next();
        assertThat(rs.getInt(1)).as("notices of the failed transaction").isZero();
      }
    }
  }

  private static Connection rollbackMayFail(Connection real, AtomicBoolean fail) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (self, m, args) -> {
          if (m.getName().equals("rollback") && (args == null || args.length == 0) && fail.get()) {
            throw new SQLException("rollback failed (simulated)", "08006");
          }
          return invoke(real, m, args);
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
