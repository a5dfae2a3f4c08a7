package dev.herald.server;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeNotFoundException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a caller may see and change, tenant by tenant. A caller of one tenant sees its notices, the
 * definitions it owns or was granted (and the built-in direct-callback definition), and nothing else:
 * another tenant's notice or definition answers exactly as one that does not exist.
 */
public final class TenantScope {
  private final Tenants tenants;
  private final NoticeOwners owners;
  private final ServerProperties properties;

  TenantScope(Tenants tenants, NoticeOwners owners, ServerProperties properties) {
    this.tenants = tenants;
    this.owners = owners;
    this.properties = properties;
  }

  public Tenants tenants() {
    return tenants;
  }

  public NoticeOwners owners() {
    return owners;
  }

  // ------------------------------------------------------------------------------------ notices

  /** Whether the caller sees the notice (one that does not exist counts as the default tenant's). */
  public boolean seesNotice(Caller caller, UUID id) {
    if (caller.everyTenant() || (tenants.onlyDefault() && caller.tenant().equals(Tenants.DEFAULT))) {
      return true;
    }
    return Access.touches(caller, owners.tenantOf(id));
  }

  /** @throws NoticeNotFoundException if the caller does not see it, as for a notice that does not exist */
  public void requireNotice(Caller caller, UUID id) {
    if (!seesNotice(caller, id)) {
      throw new NoticeNotFoundException(id);
    }
  }

  /** Those of {@code ids} the caller does not see. */
  public java.util.Set<UUID> hidden(Caller caller, Collection<UUID> ids) {
    java.util.Set<UUID> out = new java.util.HashSet<>();
    if (caller.everyTenant() || (tenants.onlyDefault() && caller.tenant().equals(Tenants.DEFAULT))) {
      return out;
    }
    Map<UUID, String> known = owners.tenantsOf(ids);
    for (UUID id : ids) {
      if (!Access.touches(caller, known.getOrDefault(id, Tenants.DEFAULT))) {
        out.add(id);
      }
    }
    return out;
  }

  /**
   * Whether searches of this caller must be narrowed to a tenant: when it acts for one and other
   * tenants exist (a single-tenant install's callers see everything).
   */
  public boolean narrows(Caller caller) {
    return !caller.everyTenant() && !(tenants.onlyDefault() && caller.tenant().equals(Tenants.DEFAULT));
  }

  // ------------------------------------------------------------------------------------ definitions

  /** Whether the caller sees (and may use) the definition: its tenant's own, granted, or the built-in callback. */
  public boolean seesDefinition(Caller caller, String name) {
    if (caller.everyTenant()) {
      return true;
    }
    String owner = tenants.ownerOf(name);
    if (owner.equals(caller.tenant())) {
      return true;
    }
    return owner.equals(Tenants.DEFAULT)
        && (name.equals(properties.getCallbackDefinition()) || tenants.grantsOf(caller.tenant()).contains(name));
  }

  /** Whether the caller may change or delete the definition: one who manages definitions, of its owner or every tenant. */
  public boolean mayChangeDefinition(Caller caller, String name) {
    return Access.may(caller, Permission.MANAGE_DEFINITIONS) && Access.touches(caller, tenants.ownerOf(name));
  }

  /** The definitions the caller sees. */
  public List<NoticeDefinition> definitions(Caller caller, Herald herald) {
    return herald.definitions().list().stream().filter(d -> seesDefinition(caller, d.name())).toList();
  }

  /**
   * Refuses a name a tenant admin may not create: definitions of tenant {@code shop} are named
   * {@code shop.<name>}; the default tenant's names do not start with another tenant's id and a dot.
   */
  public void checkNewDefinitionName(Caller caller, String name) {
    String owner = tenants.ownerOf(name);
    if (Access.touches(caller, owner)) {
      return;
    }
    throw ApiException.invalid("name", caller.tenant().equals(Tenants.DEFAULT)
        ? "'" + name + "' is in another tenant's namespace; pick a name that does not start with a tenant id and a dot"
        : "definitions of tenant " + caller.tenant() + " are named " + caller.tenant() + ".<name>, was '" + name + "'");
  }

  /** The tenant a new notice of this definition belongs to, created by this caller. */
  public String tenantOfNewNotice(Caller caller, String definition) {
    return caller.everyTenant() ? tenants.ownerOf(definition) : caller.tenant();
  }
}
