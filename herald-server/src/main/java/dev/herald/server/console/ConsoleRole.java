package dev.herald.server.console;

import dev.herald.server.Permission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What a console user may do: the {@link Permission}s each role grants, here and nowhere else. */
public enum ConsoleRole {
  /** Everything an operator does, plus definitions, API tokens, and (of every tenant) users, tenants, endpoints. */
  ADMIN(EnumSet.allOf(Permission.class)),
  /** Looks at everything; resends, cancels, confirms, reschedules and recovers notices; pauses and resumes schedules. */
  OPERATOR(EnumSet.of(Permission.READ, Permission.ACT_ON_NOTICES, Permission.ACT_ON_SCHEDULES)),
  /** Looks; changes nothing. */
  VIEWER(EnumSet.of(Permission.READ));

  private final Set<Permission> grants;

  ConsoleRole(Set<Permission> grants) {
    this.grants = Set.copyOf(grants);
  }

  /**
   * What a user of this role may do; a user of one tenant: less what {@linkplain
   * Permission#everyTenant() every tenant} shares ({@link dev.herald.server.Access#permissions}).
   */
  public Set<Permission> grants() {
    return grants;
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
