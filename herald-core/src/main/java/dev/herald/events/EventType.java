package dev.herald.events;

import dev.herald.InvalidInputException;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * A kind of event that endpoints subscribe to, e.g. {@code order.paid}.
 *
 * @param tenant the tenant it belongs to ({@link Tenancy#DEFAULT} when null)
 * @param name unique within the tenant: 1 to 200 of letters, digits, '.', '_', '-'
 * @param description what it means, for the people who subscribe; optional
 * @param schema a JSON Schema its payloads must match ({@link JsonSchema}'s subset); null for any JSON
 * @param createdAt set when stored; null before
 * @param updatedAt set when stored; null before
 */
public record EventType(String tenant, String name, String description, String schema, Instant createdAt,
    Instant updatedAt) {
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  /** The longest schema, in characters. */
  public static final int MAX_SCHEMA = 65_536;

  public EventType {
    tenant = Tenancy.check(tenant, "tenant");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException("name", "'" + name + "' must be 1 to 200 characters of letters, digits, '.', '_'"
          + " or '-'");
    }
    if (description != null && description.length() > 2000) {
      throw new InvalidInputException("description", "must be at most 2000 characters, was " + description.length());
    }
    if (schema != null) {
      if (schema.length() > MAX_SCHEMA) {
        throw new InvalidInputException("schema", "must be at most " + MAX_SCHEMA + " characters, was " + schema.length());
      }
      JsonSchema.parse(schema, "schema");
    }
  }

  /** An event type of the default tenant. */
  public static EventType of(String name, String description, String schema) {
    return new EventType(null, name, description, schema, null, null);
  }

  /** The same type in {@code tenantId}. */
  public EventType tenant(String tenantId) {
    return new EventType(tenantId, name, description, schema, createdAt, updatedAt);
  }
}
