package dev.herald;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A part of the notices that an application marks in a table of its own beside Herald's, one row
 * per marked notice: (notice id, label). A search, a count or a chart narrowed to a scope sees the
 * notices whose row has the label, or, for {@link #unlabelled}, those without a row. The server
 * keeps each notice's tenant this way; a store outside a database may refuse scopes.
 *
 * <p>The names are SQL identifiers (letters, digits, underscores), checked here; the table's id
 * column stores ids as Herald's tables do (UUID, or BINARY(16) on MySQL and MariaDB).
 *
 * @param table the application's table
 * @param noticeColumn its column holding the notice id
 * @param labelColumn its column holding the label
 * @param label the label to keep; null keeps the notices without a row
 */
public record NoticeScope(String table, String noticeColumn, String labelColumn, String label) {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  public NoticeScope {
    identifier("table", table);
    identifier("noticeColumn", noticeColumn);
    identifier("labelColumn", labelColumn);
  }

  /** The notices whose row in {@code table} has {@code label}. */
  public static NoticeScope labelled(String table, String noticeColumn, String labelColumn, String label) {
    return new NoticeScope(table, noticeColumn, labelColumn, Objects.requireNonNull(label, "label"));
  }

  /** The notices without a row in {@code table}. */
  public static NoticeScope unlabelled(String table, String noticeColumn, String labelColumn) {
    return new NoticeScope(table, noticeColumn, labelColumn, null);
  }

  private static void identifier(String field, String value) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new InvalidInputException(field, "must be an SQL identifier (letters, digits, underscores), was '"
          + value + "'");
    }
  }
}
