package dev.herald.server;

import java.util.EnumSet;
import java.util.Set;

/**
 * The one authorization policy of the API and the console: what a caller may do ({@link
 * #may(Caller, Permission)}) and whose things they may touch ({@link #touches(Caller, String)}).
 * API routes declare what they need with {@link Requires}; the console's security chain asks the same
 * questions of its users. A caller's permissions are its role's grants, less those of every tenant
 * when it acts for one tenant.
 */
public final class Access {
  private Access() {}

  /** What a caller whose role grants {@code granted} may do, acting for {@code tenant} (null: every tenant). */
  public static Set<Permission> permissions(Set<Permission> granted, String tenant) {
    EnumSet<Permission> out = granted.isEmpty() ? EnumSet.noneOf(Permission.class) : EnumSet.copyOf(granted);
    if (tenant != null) {
      out.removeIf(Permission::everyTenant);
    }
    return Set.copyOf(out);
  }

  /** Whether the caller may do it; nobody (null) may do anything. */
  public static boolean may(Caller caller, Permission permission) {
    return caller != null && caller.permissions().contains(permission);
  }

  /**
   * Whether the caller may touch what belongs to tenant {@code owner}: its own tenant's, or anyone's
   * (and what is every tenant's, owner null) for a caller of every tenant.
   */
  public static boolean touches(Caller caller, String owner) {
    return caller.everyTenant() || caller.tenant().equals(owner);
  }
}
