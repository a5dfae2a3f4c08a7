package dev.herald.store.jdbc;

import dev.herald.NoticeCriteria;
import dev.herald.NoticeScope;
import dev.herald.NoticeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The WHERE terms of searches, counts and charts over a notice table aliased {@code n}; each adds
 * its parameters, in order, to the list given.
 */
final class Conditions {
  private Conditions() {}

  /**
   * The criteria's terms on one table, whose rows have {@code statuses} (the criteria's, split per
   * table); no status term when they are all {@code ofTable} the table can hold.
   */
  static String where(NoticeCriteria c, List<NoticeStatus> statuses, int ofTable, List<Object> args) {
    List<String> terms = new ArrayList<>();
    if (c.definition() != null) {
      terms.add("n.definition = ?");
      args.add(c.definition());
    }
    if (statuses.size() < ofTable) {
      terms.add("n.status IN (" + StorePart.placeholders(statuses.size()) + ")");
      statuses.forEach(s -> args.add(s.name()));
    }
    if (c.createdFrom() != null) {
      terms.add("n.created_at >= ?");
      args.add(c.createdFrom().toEpochMilli());
    }
    if (c.createdTo() != null) {
      terms.add("n.created_at < ?");
      args.add(c.createdTo().toEpochMilli());
    }
    if (!c.idempotencyKeys().isEmpty()) {
      List<String> keys = new ArrayList<>();
      for (String key : c.idempotencyKeys()) {
        keys.add("n.idempotency_key = ?");
        args.add(key);
      }
      if (c.idempotencyKeyEnding() != null) {
        keys.add("n.idempotency_key LIKE ? ESCAPE '!'");
        args.add("%" + likeEscaped(c.idempotencyKeyEnding()));
      }
      terms.add("(" + String.join(" OR ", keys) + ")");
    }
    if (c.descriptionContains() != null) {
      terms.add("LOWER(n.description) LIKE ? ESCAPE '!'");
      args.add("%" + likeEscaped(c.descriptionContains().toLowerCase(Locale.ROOT)) + "%");
    }
    if (c.scope() != null) {
      terms.add(scope(c.scope(), args));
    }
    return terms.isEmpty() ? "" : " WHERE " + String.join(" AND ", terms);
  }

  /** {@code n.definition = ?} if a definition is given, and the scope's term if one is; "" for neither. */
  static String andDefinitionAndScope(String definition, NoticeScope scope, List<Object> args) {
    StringBuilder sql = new StringBuilder();
    if (definition != null) {
      sql.append(" AND n.definition = ?");
      args.add(definition);
    }
    if (scope != null) {
      sql.append(" AND ").append(scope(scope, args));
    }
    return sql.toString();
  }

  /** Whether the notice {@code n} belongs to the scope: a row with its label in the scope's table, or none. */
  static String scope(NoticeScope s, List<Object> args) {
    String row = "SELECT 1 FROM " + s.table() + " o WHERE o." + s.noticeColumn() + " = n.id";
    if (s.label() == null) {
      return "NOT EXISTS (" + row + ")";
    }
    args.add(s.label());
    return "EXISTS (" + row + " AND o." + s.labelColumn() + " = ?)";
  }

  private static String likeEscaped(String text) {
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
  }
}
