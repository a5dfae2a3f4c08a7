package dev.herald.server;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What an API token may do: the {@link Permission}s each role grants, here and nowhere else. */
public enum Role {
  /** Everything: tokens, definitions, and notices (of every tenant: tenants and endpoints too). */
  ADMIN(EnumSet.allOf(Permission.class)),
  /** Notices: create, edit, cancel, query, confirm, resend, recover; read definitions. */
  CLIENT(EnumSet.of(Permission.READ, Permission.CREATE_NOTICES, Permission.ACT_ON_NOTICES));

  private final Set<Permission> grants;

  Role(Set<Permission> grants) {
    this.grants = Set.copyOf(grants);
  }

  /**
   * What a token of this role may do; a token of one tenant: less what {@linkplain
   * Permission#everyTenant() every tenant} shares ({@link Access#permissions}).
   */
  public Set<Permission> grants() {
    return grants;
  }

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
