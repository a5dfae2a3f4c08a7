package dev.herald.guarantees;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * A data source that can be killed as a process is: after {@link #kill()}, every {@code
 * getConnection} and every call on a connection, statement, result set or database metadata it
 * handed out throws an {@link SQLException} with SQLState 08006 (connection failure); calls already
 * inside the driver finish. {@link #bury()} then does what the database server does for a client
 * that died: ends the connections it had open, rolling back their transactions (an open transaction
 * would otherwise hold its row locks for ever).
 */
final class KillableDataSource {
  /**
   * What is wrapped. Values the caller hands back to the driver (an {@code Array} from {@code
   * createArrayOf}, say) stay the driver's own: drivers read their internals.
   */
  private static final Set<Class<?>> WRAPPED = Set.of(Connection.class, Statement.class, PreparedStatement.class,
      CallableStatement.class, ResultSet.class, DatabaseMetaData.class);

  private final DataSource proxy;
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();
  private volatile boolean killed;

  KillableDataSource(DataSource real) {
    this.proxy = wrap(real, DataSource.class);
  }

  DataSource dataSource() {
    return proxy;
  }

  void kill() {
    killed = true;
  }

  /**
   * After {@link #kill()}: ends every connection still open, each on a thread of its own (one may
   * wait for a lock another holds). A server connection is aborted (its socket closed: the server
   * rolls back) and nothing else: closing it through the pool as well would race with a call still
   * inside the driver, and the pool's close restores auto-commit, which commits whatever that call
   * left open (a half-written outcome batch: an archived notice without its attempt row, seen once in
   * {@code PostgresGuaranteesTest}). A dead process never commits. An embedded H2 one, whose abort
   * does nothing, is rolled back and closed.
   */
  void bury() {
    // Drivers abort on the executor they are given, after abort() returned: a second executor, closed
    // last, so that no abort is refused by one already shutting down (pgjdbc's was, and the fallback,
    // a rollback and close through the pool racing with a call inside the driver, committed half a
    // batch: an outcome without its attempt row, seen in PostgresGuaranteesTest).
    try (ExecutorService aborts = Executors.newVirtualThreadPerTaskExecutor()) {
      try (ExecutorService each = Executors.newVirtualThreadPerTaskExecutor()) {
        open.forEach(c -> each.execute(() -> {
          if (!embeddedH2(c)) {
            try {
              c.abort(aborts);
              return;
            } catch (SQLException | RuntimeException e) {
              // cannot be aborted: rolled back below
            }
          }
          rollBackAndClose(c);
        }));
      }
    }
  }

  /**
   * H2's {@code abort} does nothing (an embedded session has no socket to cut), so a killed node's
   * open transaction would hold its row locks until the database closes: it is rolled back instead,
   * which H2 runs after any statement still inside it.
   */
  private static boolean embeddedH2(Connection c) {
    try {
      return c.isWrapperFor(org.h2.jdbc.JdbcConnection.class);
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }

  private static void rollBackAndClose(Connection c) {
    try (c) {
      if (!c.isClosed() && !c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      // it is gone already
    }
  }

  @SuppressWarnings("unchecked")
  private <T> T wrap(Object target, Class<T> type) {
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
        (self, method, args) -> invoke(target, method, args));
  }

  private Object invoke(Object target, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "toString" -> "killable(" + target + ")";
        case "hashCode" -> System.identityHashCode(this) ^ target.hashCode();
        default -> method.invoke(target, args);
      };
    }
    if (killed) {
      throw dead(method);
    }
    Object result;
    try {
      result = method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    if (result instanceof Connection c && target instanceof DataSource) {
      open.add(c);
      if (killed) { // killed meanwhile: bury() may have missed it
        rollBackAndClose(c);
        throw dead(method);
      }
    } else if (target instanceof Connection c && method.getName().equals("close")) {
      open.remove(c);
    }
    Class<?> type = method.getReturnType();
    return result != null && WRAPPED.contains(type) ? wrap(result, type) : result;
  }

  private static Exception dead(Method method) {
    SQLException dead = new SQLNonTransientConnectionException("node killed (simulated)", "08006");
    boolean declared = Arrays.stream(method.getExceptionTypes()).anyMatch(t -> t.isAssignableFrom(SQLException.class));
    return declared ? dead : new IllegalStateException(dead);
  }
}
