package dev.herald.intake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.BackPressureException;
import dev.herald.InvalidInputException;
import dev.herald.StoreException;
import dev.herald.UnknownDefinitionException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** Which refusals an intake waits out and which park the message. */
class RefusalsTest {
  static StoreException store(SQLException cause) {
    return new StoreException("cannot enqueue notice of definition d: " + cause.getMessage(), cause);
  }

  @Test
  void backPressureAndTheDatabaseAwayAreWaitedOut() {
    assertThat(Refusals.forNow(new BackPressureException(10, 5))).isTrue();
    // HikariCP's pool timeout; PostgreSQL's connection refused; H2's closed database; a closed pool
    assertThat(Refusals.forNow(store(new SQLTransientConnectionException("Connection is not available")))).isTrue();
    assertThat(Refusals.forNow(store(new SQLException("Connection refused", "08001")))).isTrue();
    assertThat(Refusals.forNow(store(new SQLNonTransientConnectionException("Database is already closed", "90098"))))
        .isTrue();
    assertThat(Refusals.forNow(store(new SQLException("HikariDataSource has been closed.")))).isTrue();
    assertThat(Refusals.forNow(store(new SQLException("deadlock detected", "40P01")))).isTrue();
  }

  @Test
  void whatIsWrongWithTheMessageIsForGood() {
    assertThat(Refusals.forNow(new InvalidInputException("fireAt", "is out of range"))).isFalse();
    assertThat(Refusals.forNow(new UnknownDefinitionException("definition", "no-such"))).isFalse();
    assertThat(Refusals.forNow(new ArithmeticException("long overflow"))).isFalse();
    assertThat(Refusals.forNow(store(new SQLDataException("Value too long for column", "22001")))).isFalse();
    assertThat(Refusals.forNow(store(new SQLException("numeric field overflow", "22003")))).isFalse();
    assertThat(Refusals.forNow(store(new SQLException("null value violates not-null constraint", "23502")))).isFalse();
  }

  @Test
  void theReasonIsHeraldsMessageOrTheExceptionItself() {
    assertThat(Refusals.reason(new InvalidInputException("fireAt", "is out of range"))).contains("fireAt")
        .doesNotContain("InvalidInputException");
    assertThat(Refusals.reason(new ArithmeticException("long overflow")))
        .isEqualTo("enqueue failed: java.lang.ArithmeticException: long overflow");
    assertThat(Refusals.reason(new IllegalStateException("x".repeat(5000)))).hasSize(1003);
  }
}
