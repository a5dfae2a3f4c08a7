package dev.herald.server;

/**
 * Idempotency and ordering keys are per tenant: a tenant's key is stored in its own namespace
 * ({@code <US>tenant<US>key}, US being the unit separator, a character the API refuses in keys), so
 * that two tenants using the same key in a shared definition never meet. The default tenant's keys
 * are stored as given.
 */
public final class TenantKeys {
  static final char SEPARATOR = '\u001f';

  private TenantKeys() {}

  /** The key as stored for the tenant. */
  public static String stored(String tenant, String key) {
    return key == null || tenant.equals(Tenants.DEFAULT) ? key : SEPARATOR + tenant + SEPARATOR + key;
  }

  /** The key as its tenant wrote it. */
  public static String own(String stored) {
    if (stored == null || stored.isEmpty() || stored.charAt(0) != SEPARATOR) {
      return stored;
    }
    int end = stored.indexOf(SEPARATOR, 1);
    return end < 0 ? stored : stored.substring(end + 1);
  }

  /**
   * How the key ends when stored in any tenant's namespace: a stored key ending so is that key of some
   * tenant (a key as given cannot hold the separator).
   */
  public static String anyTenantEnding(String key) {
    return SEPARATOR + key;
  }
}
