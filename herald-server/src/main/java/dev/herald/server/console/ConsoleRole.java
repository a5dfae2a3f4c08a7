package dev.herald.server.console;

import java.util.Locale;

/** What a console user may do. */
public enum ConsoleRole {
  /** Everything an operator does, plus definitions, API tokens and users. */
  ADMIN,
  /** Looks at everything; resends, cancels, confirms, reschedules and recovers notices. */
  OPERATOR,
  /** Looks; changes nothing. */
  VIEWER;

  /** The Spring Security authority, {@code ROLE_ADMIN} and so on. */
  String authority() {
    return "ROLE_" + name();
  }

  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Reads {@code admin}, {@code operator} or {@code viewer}; null if it is none of them. */
  static ConsoleRole parse(String s) {
    if (s == null) {
      return null;
    }
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "admin" -> ADMIN;
      case "operator" -> OPERATOR;
      case "viewer" -> VIEWER;
      default -> null;
    };
  }
}
