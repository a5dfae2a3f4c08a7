package dev.herald.intake;

import dev.herald.BackPressureException;
import dev.herald.HeraldException;
import dev.herald.StoreException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;

/**
 * Why an intake could not turn a message into a notice, and whether that is for now or for good.
 * For now: back-pressure, or the database away, busy or failing in a way that is not about the
 * message; the intake holds the message and tries again. For good: anything about the message
 * itself (malformed, an unknown definition, a value out of range, data the database refuses); the
 * intake parks it and goes on with the ones behind.
 */
public final class Refusals {
  private Refusals() {}

  /**
   * Whether trying again later may succeed: {@link BackPressureException}, or a {@link
   * StoreException} unless the database refused the data itself (SQLState class 22, data
   * exception, or 23, integrity constraint). A store failure of unknown kind counts as the
   * database's, not the message's: parking every message while the database is away would be worse
   * than holding one that never goes in.
   */
  public static boolean forNow(Throwable e) {
    if (e instanceof BackPressureException) {
      return true;
    }
    if (!(e instanceof StoreException)) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLDataException || t instanceof SQLIntegrityConstraintViolationException) {
        return false;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("22") || sql.getSQLState().startsWith("23"))) {
        return false;
      }
    }
    return true;
  }

  /** The reason a parked message carries: Herald's own message, else the exception's type and message. */
  public static String reason(Throwable e) {
    String why = e instanceof HeraldException && e.getMessage() != null ? e.getMessage()
        : "enqueue failed: " + e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    return why.length() > 1000 ? why.substring(0, 1000) + "..." : why;
  }
}
