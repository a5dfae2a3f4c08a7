package dev.herald.events;

import dev.herald.InvalidInputException;
import java.util.regex.Pattern;

/**
 * Tenants as the event tables know them: a tenant id on every event type, endpoint and event, and
 * the name of the definition an endpoint's notices belong to. The one place that decides both, so
 * that a server's tenant model can be reconciled with it.
 *
 * <p>Ids follow herald-server's tenants ({@code [a-z0-9][a-z0-9-]{0,39}}); everything written without
 * a tenant is the {@value #DEFAULT} tenant's, as there. An endpoint's definition is named {@code
 * endpoint.<id>} for the default tenant and {@code <tenant>.endpoint.<id>} for the others, so that
 * a server that gives a tenant the definitions named {@code <tenant>.*} gives it its endpoints' notices.
 */
public final class Tenancy {
  /** The tenant of everything written without one. */
  public static final String DEFAULT = "default";
  private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
  static final String ENDPOINT_PREFIX = "endpoint.";

  private Tenancy() {}

  /** The tenant, {@value #DEFAULT} for null; refuses an id that is not one, naming {@code field}. */
  public static String check(String tenant, String field) {
    if (tenant == null) {
      return DEFAULT;
    }
    if (!ID.matcher(tenant).matches()) {
      throw new InvalidInputException(field, "must be 1 to 40 lower-case letters, digits or '-', starting with a"
          + " letter or digit; was '" + tenant + "'");
    }
    return tenant;
  }

  /** The name of the definition that carries an endpoint's notices. */
  public static String endpointDefinition(String tenant, String endpointId) {
    return DEFAULT.equals(tenant) ? ENDPOINT_PREFIX + endpointId : tenant + "." + ENDPOINT_PREFIX + endpointId;
  }
}
