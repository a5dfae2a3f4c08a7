package dev.herald.server;

import java.util.Set;

/**
 * Who is calling, for every check of what they may see and change, and for the audit log.
 *
 * @param actor who, as the audit log names them: {@code token shop-backend (client, shop)}, {@code user alice}
 * @param tenant the tenant they act for; null for every tenant (global admin tokens, console users
 *     without a tenant)
 * @param permissions what they may do ({@link Access} asks): their role's grants, as {@link
 *     Access#permissions(Set, String)} narrows them
 * @param address where the call came from (the client's IP address as the server sees it)
 */
public record Caller(String actor, String tenant, Set<Permission> permissions, String address) {

  public Caller {
    permissions = Set.copyOf(permissions);
  }

  /** Whether they see and act for every tenant. */
  public boolean everyTenant() {
    return tenant == null;
  }

  /** The tenant new things they create belong to: their own, or the default tenant for operators. */
  public String actingTenant() {
    return tenant == null ? Tenants.DEFAULT : tenant;
  }

  /** The caller of an API request with this token. */
  static Caller of(ApiTokens.Info token, String address) {
    String scope = token.tenant() == null ? "every tenant" : token.tenant();
    return new Caller("token " + token.name() + " (" + token.role().text() + ", " + scope + ")", token.tenant(),
        Access.permissions(token.role().grants(), token.tenant()), address);
  }
}
