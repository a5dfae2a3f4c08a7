package dev.herald.server;

import java.util.Locale;

/** What an API token may do. */
public enum Role {
  /** Everything: tokens, definitions, and notices. */
  ADMIN,
  /** Notices: create, edit, cancel, query, confirm, resend, recover; read definitions. */
  CLIENT;

  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Reads {@code admin} or {@code client}; null if it is neither. */
  public static Role parse(String s) {
    if (s == null) {
      return null;
    }
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "admin" -> ADMIN;
      case "client" -> CLIENT;
      default -> null;
    };
  }
}
