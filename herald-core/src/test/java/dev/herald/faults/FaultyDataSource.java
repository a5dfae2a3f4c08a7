package dev.herald.faults;

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
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A data source that produces the faults every production database produces, on demand: the
 * pool's timeout, a connection that breaks before a statement, a commit whose answer is lost after
 * it landed, a slow statement. Faults are {@link Rule}s matched at each step of a connection's
 * life, on the calling thread and the SQL it runs; each fires a set number of times.
 */
public final class FaultyDataSource {
  /** Where in a connection's life a rule is matched. */
  public enum Step {
    /** {@code getConnection}: nothing has run yet. */
    CONNECT,
    /** Before a statement runs ({@code execute*}); the SQL is the statement's. */
    STATEMENT,
    /** {@code commit}. */
    COMMIT
  }

  /** What a matching rule does. */
  public enum Fault {
    /** Throws what HikariCP throws when the pool has no connection for its timeout (CONNECT). */
    POOL_TIMEOUT,
    /** Throws a broken connection (SQLState 08006) instead of running the step. */
    BREAK,
    /** Runs the step (a commit lands), then throws a broken connection: the answer is lost. */
    LOSE_ANSWER,
    /** Waits {@code millis} first, then runs the step. */
    DELAY,
    /** Runs the step (a statement lands), then waits {@code millis} before answering. */
    DELAY_ANSWER
  }

  /** A fault at {@code step} on threads and SQL matching the predicates, {@code times} times. */
  public static final class Rule {
    final Step step;
    final Fault fault;
    final Predicate<String> thread;
    final Predicate<String> sql;
    final AtomicInteger left;
    final long millis;
    final AtomicInteger fired = new AtomicInteger();

    Rule(Step step, Fault fault, Predicate<String> thread, Predicate<String> sql, int times, long millis) {
      this.step = step;
      this.fault = fault;
      this.thread = thread;
      this.sql = sql;
      this.left = new AtomicInteger(times);
      this.millis = millis;
    }

    /** How many times this rule fired. */
    public int fired() {
      return fired.get();
    }

    boolean take(Step at, String threadName, String statement) {
      if (at != step || !thread.test(threadName) || !sql.test(statement == null ? "" : statement)) {
        return false;
      }
      while (true) {
        int n = left.get();
        if (n <= 0) {
          return false;
        }
        if (left.compareAndSet(n, n - 1)) {
          fired.incrementAndGet();
          return true;
        }
      }
    }
  }

  private static final Set<Class<?>> WRAPPED = Set.of(Connection.class, Statement.class, PreparedStatement.class,
      CallableStatement.class, ResultSet.class, DatabaseMetaData.class);

  private final DataSource proxy;
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  /** The SQL each connection ran since its last commit: what a COMMIT rule's SQL predicate sees. */
  private final java.util.Map<Object, StringBuilder> sinceCommit = new java.util.concurrent.ConcurrentHashMap<>();
  /** Until this instant ({@link System#nanoTime()}), every step waits: the node is paused, as the database sees it. */
  private volatile long stalledUntil;
  private volatile boolean stalled;

  public FaultyDataSource(DataSource real) {
    this.proxy = wrap(real, DataSource.class, null);
  }

  public DataSource dataSource() {
    return proxy;
  }

  /** Adds a rule; it is matched from now on. */
  public Rule add(Step step, Fault fault, Predicate<String> thread, Predicate<String> sql, int times, long millis) {
    Rule r = new Rule(step, fault, thread, sql, times, millis);
    rules.add(r);
    return r;
  }

  /** The pool's timeout, {@code times} times, on threads whose name starts with {@code threadPrefix}. */
  public Rule poolTimeout(String threadPrefix, int times) {
    return add(Step.CONNECT, Fault.POOL_TIMEOUT, t -> t.startsWith(threadPrefix), s -> true, times, 0);
  }

  /** The next {@code times} commits on such threads land, but their answer is lost. */
  public Rule loseCommitAnswer(String threadPrefix, int times) {
    return add(Step.COMMIT, Fault.LOSE_ANSWER, t -> t.startsWith(threadPrefix), s -> true, times, 0);
  }

  /** Statements on such threads whose SQL contains {@code sqlPart} break, {@code times} times. */
  public Rule breakStatements(Predicate<String> thread, String sqlPart, int times) {
    return add(Step.STATEMENT, Fault.BREAK, thread, s -> s.contains(sqlPart), times, 0);
  }

  /** Statements on such threads whose SQL contains {@code sqlPart} wait {@code millis} first, {@code times} times. */
  public Rule slowStatements(String threadPrefix, String sqlPart, long millis, int times) {
    return add(Step.STATEMENT, Fault.DELAY, t -> t.startsWith(threadPrefix), s -> s.contains(sqlPart), times, millis);
  }

  /** Statements on such threads whose SQL contains {@code sqlPart} run at once but answer {@code millis} late, {@code times} times. */
  public Rule lateAnswers(String threadPrefix, String sqlPart, long millis, int times) {
    return add(Step.STATEMENT, Fault.DELAY_ANSWER, t -> t.startsWith(threadPrefix), s -> s.contains(sqlPart), times,
        millis);
  }

  /** Every step of every connection waits until {@code millis} from now (a process pause, as the database sees it). */
  public void stall(long millis) {
    stalledUntil = System.nanoTime() + millis * 1_000_000;
    stalled = true;
  }

  /**
   * The next {@code times} commits on such threads of a transaction that ran SQL containing {@code
   * sqlPart} land at once but answer {@code millis} late.
   */
  public Rule lateCommitAnswers(String threadPrefix, String sqlPart, long millis, int times) {
    return add(Step.COMMIT, Fault.DELAY_ANSWER, t -> t.startsWith(threadPrefix), s -> s.contains(sqlPart), times,
        millis);
  }

  /** Removes every rule. */
  public void clear() {
    rules.clear();
  }

  private Rule match(Step step, String sql) {
    String thread = Thread.currentThread().getName();
    for (Rule r : rules) {
      if (r.take(step, thread, sql)) {
        return r;
      }
    }
    return null;
  }

  private static SQLException broken(String what) {
    return new SQLNonTransientConnectionException("connection broken (injected) at " + what, "08006");
  }

  @SuppressWarnings("unchecked")
  private <T> T wrap(Object target, Class<T> type, String sql) {
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
        (self, method, args) -> invoke(target, method, args, sql));
  }

  private Object invoke(Object target, Method method, Object[] args, String statementSql) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "toString" -> "faulty(" + target + ")";
        case "hashCode" -> System.identityHashCode(this) ^ target.hashCode();
        default -> method.invoke(target, args);
      };
    }
    String name = method.getName();
    long stall = stalled ? stalledUntil - System.nanoTime() : 0;
    if (stall > 0 && (target instanceof DataSource || name.startsWith("execute") || name.equals("commit"))) {
      LockSupport.parkNanos(stall);
    }
    Rule after = null;
    Rule late = null;
    if (target instanceof DataSource && name.equals("getConnection")) {
      Rule r = match(Step.CONNECT, null);
      if (r != null) {
        switch (r.fault) {
          case POOL_TIMEOUT -> throw new SQLTransientConnectionException(
              "pool - Connection is not available, request timed out after 30000ms (injected)", "08001");
          case BREAK -> throw broken("connect");
          case DELAY -> LockSupport.parkNanos(r.millis * 1_000_000);
          case LOSE_ANSWER -> after = r;
          case DELAY_ANSWER -> late = r;
        }
      }
    } else if (target instanceof Connection && name.equals("commit")) {
      StringBuilder ran = sinceCommit.remove(target);
      Rule r = match(Step.COMMIT, ran == null ? "" : ran.toString());
      if (r != null) {
        switch (r.fault) {
          case BREAK, POOL_TIMEOUT -> throw broken("commit");
          case DELAY -> LockSupport.parkNanos(r.millis * 1_000_000);
          case LOSE_ANSWER -> after = r;
          case DELAY_ANSWER -> late = r;
        }
      }
    } else if (target instanceof Statement && name.startsWith("execute")) {
      String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : statementSql;
      Rule r = match(Step.STATEMENT, sql);
      if (r != null) {
        switch (r.fault) {
          case BREAK, POOL_TIMEOUT -> throw broken("statement " + sql);
          case DELAY -> LockSupport.parkNanos(r.millis * 1_000_000);
          case LOSE_ANSWER -> after = r;
          case DELAY_ANSWER -> late = r;
        }
      }
    }
    Object result;
    try {
      result = method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    if (after != null) {
      throw broken(name + " (it ran; the answer was lost)");
    }
    if (late != null) {
      LockSupport.parkNanos(late.millis * 1_000_000);
    }
    Class<?> type = method.getReturnType();
    if (result != null && WRAPPED.contains(type)) {
      String sql = (target instanceof Connection && name.startsWith("prepare") && args != null && args[0] instanceof String s)
          ? s : statementSql;
      if (target instanceof Connection && sql != null) {
        sinceCommit.computeIfAbsent(target, c -> new StringBuilder()).append(sql).append('\n');
      }
      return wrap(result, type, sql);
    }
    if (target instanceof Connection && (name.equals("rollback") || name.equals("close"))) {
      sinceCommit.remove(target);
    }
    return result;
  }
}
