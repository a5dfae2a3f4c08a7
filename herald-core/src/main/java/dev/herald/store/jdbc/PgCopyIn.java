package dev.herald.store.jdbc;

import static dev.herald.store.jdbc.NoticeRows.LIVE_COLUMNS;

import dev.herald.spi.NoticeRow;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * Many live rows in one {@code COPY herald_notice FROM STDIN}, on the caller's connection and in its
 * transaction: no parameters to bind and one statement for the server to run, which writes a batch of
 * 100 to 1,000 notices in a half to two thirds of the time multi-row inserts take (herald-bench,
 * intake). Only PostgreSQL's own driver speaks it; this class is loaded only when that driver is the
 * one in use.
 */
final class PgCopyIn {
  private static final String COPY = "COPY herald_notice (" + LIVE_COLUMNS + ") FROM STDIN";

  private PgCopyIn() {}

  /** Whether {@code c} is (or wraps) a pgjdbc connection, so that {@link #insert} can run on it. */
  static boolean usable(Connection c) {
    try {
      return c.isWrapperFor(PGConnection.class);
    } catch (SQLException | LinkageError e) {
      return false;
    }
  }

  static void insert(Connection c, NoticeRows format, List<NoticeRow> rows) throws SQLException {
    StringBuilder sb = new StringBuilder(rows.size() * 256);
    for (NoticeRow row : rows) {
      format.appendCopyLine(sb, row);
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    try {
      long copied = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY, new ByteArrayInputStream(bytes));
      if (copied != rows.size()) {
        throw new SQLException("COPY wrote " + copied + " rows of " + rows.size());
      }
    } catch (IOException e) { // reading a byte array does not fail
      throw new SQLException("COPY: " + e.getMessage(), e);
    }
  }
}
