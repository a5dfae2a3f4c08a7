package dev.herald.server;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Tenants ({@code herald_server_tenant}): the business lines that share one server. A tenant owns its
 * tokens, its definitions (named {@code <tenant>.<name>}), the notices created for it and the
 * endpoints they go to; it may be granted definitions of the default tenant. Read from a copy
 * refreshed every few seconds (every server sharing the database sees a change within {@link
 * #REFRESH_MS}), and at once on the server that made it.
 */
public final class Tenants {
  /** The tenant of everything that existed before tenants, and of a single-tenant install. */
  public static final String DEFAULT = "default";
  static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
  static final long REFRESH_MS = 5_000;

  /**
   * A tenant.
   *
   * @param callbackOrigins origins ({@code https://host[:port]}) its notices may name as callbackUrl
   *     on definitions that sign, besides those the definition lists
   * @param maxBacklog most live notices at once; null for no limit
   * @param maxRate most notices created per period, e.g. {@code 100/s}; null for no limit
   */
  public record Tenant(String id, String name, List<String> callbackOrigins, Long maxBacklog, String maxRate,
      Instant createdAt, String createdBy) {}

  private record Snapshot(Map<String, Tenant> byId, Map<String, Set<String>> grants, long readAt) {}

  private final DataSource dataSource;
  private final Clock clock;
  private volatile Snapshot snapshot;

  Tenants(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  // ------------------------------------------------------------------------------------ reading

  public List<Tenant> list() {
    return List.copyOf(current().byId().values());
  }

  public Optional<Tenant> find(String id) {
    return id == null ? Optional.empty() : Optional.ofNullable(current().byId().get(id));
  }

  /** Whether the default tenant is the only one: then every notice is the default tenant's. */
  public boolean onlyDefault() {
    Map<String, Tenant> all = current().byId();
    return all.size() == 1 && all.containsKey(DEFAULT);
  }

  /**
   * The tenant that owns a definition: the one its name starts with ({@code shop.order-paid} is
   * tenant {@code shop}'s), else the default tenant.
   */
  public String ownerOf(String definition) {
    int dot = definition == null ? -1 : definition.indexOf('.');
    if (dot > 0) {
      String prefix = definition.substring(0, dot);
      if (!prefix.equals(DEFAULT) && current().byId().containsKey(prefix)) {
        return prefix;
      }
    }
    return DEFAULT;
  }

  /** Definitions of the default tenant granted to {@code tenant}. */
  public Set<String> grantsOf(String tenant) {
    return current().grants().getOrDefault(tenant, Set.of());
  }

  /** Tenants a definition is granted to. */
  public Set<String> granteesOf(String definition) {
    Set<String> out = new HashSet<>();
    current().grants().forEach((tenant, defs) -> {
      if (defs.contains(definition)) {
        out.add(tenant);
      }
    });
    return out;
  }

  private Snapshot current() {
    Snapshot s = snapshot;
    if (s == null || clock.millis() - s.readAt() > REFRESH_MS) {
      s = read();
      snapshot = s;
    }
    return s;
  }

  private Snapshot read() {
    try (Connection c = dataSource.getConnection()) {
      Map<String, Tenant> byId = new LinkedHashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT id, name, callback_origins, max_backlog, max_rate,"
          + " created_at, created_by FROM herald_server_tenant ORDER BY id");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long backlog = rs.getLong(4);
          Long maxBacklog = rs.wasNull() ? null : backlog;
          String origins = rs.getString(3);
          byId.put(rs.getString(1), new Tenant(rs.getString(1), rs.getString(2),
              origins == null || origins.isBlank() ? List.of() : Arrays.asList(origins.strip().split("\\s+")),
              maxBacklog, rs.getString(5), Instant.ofEpochMilli(rs.getLong(6)), rs.getString(7)));
        }
      }
      Map<String, Set<String>> grants = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT definition, tenant FROM herald_server_definition_grant");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          grants.computeIfAbsent(rs.getString(2), k -> new HashSet<>()).add(rs.getString(1));
        }
      }
      grants.replaceAll((k, v) -> Set.copyOf(v));
      return new Snapshot(Map.copyOf(byId), Map.copyOf(grants), clock.millis());
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot read tenants: " + e.getMessage(), e);
    }
  }

  // ------------------------------------------------------------------------------------ changing

  /**
   * Adds a tenant.
   *
   * @throws ApiException 400 naming {@code id}, 409 {@code already_exists}
   */
  public Tenant create(String id, String name, List<String> callbackOrigins, Long maxBacklog, String maxRate,
      String createdBy, Set<String> definitionNames) {
    if (id == null || !ID.matcher(id).matches()) {
      throw ApiException.invalid("id", "must be 1 to 40 lower-case letters, digits or '-', starting with a letter or"
          + " digit, was '" + id + "'");
    }
    if (find(id).isPresent()) {
      throw ApiException.conflict("already_exists", "tenant '" + id + "' exists; change it with PUT /api/v1/tenants/" + id);
    }
    // A tenant's definitions are named <id>.<name>: names of that form that exist already would change owner.
    for (String d : definitionNames) {
      if (d.startsWith(id + ".")) {
        throw ApiException.invalid("id", "definition '" + d + "' exists and would become tenant '" + id
            + "''s (a tenant owns the definitions named " + id + ".<name>); pick another id");
      }
    }
    Tenant t = new Tenant(id, checkName(name == null ? id : name), checkOrigins(callbackOrigins),
        checkBacklog(maxBacklog), TenantQuotas.checkRate(maxRate), clock.instant(), Views.bounded(createdBy, 200));
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_tenant (id, name, callback_origins,"
            + " max_backlog, max_rate, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, t.id());
      ps.setString(2, t.name());
      bind(ps, 3, t);
      ps.setLong(6, t.createdAt().toEpochMilli());
      ps.setString(7, t.createdBy());
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot store the tenant: " + e.getMessage(), e);
    }
    snapshot = null;
    return t;
  }

  /** Replaces a tenant's name, callback origins and quotas. */
  public Tenant update(String id, String name, List<String> callbackOrigins, Long maxBacklog, String maxRate) {
    Tenant old = find(id).orElseThrow(() -> ApiException.notFound("no tenant '" + id + "'"));
    Tenant t = new Tenant(id, checkName(name == null ? old.name() : name), checkOrigins(callbackOrigins),
        checkBacklog(maxBacklog), TenantQuotas.checkRate(maxRate), old.createdAt(), old.createdBy());
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("UPDATE herald_server_tenant SET name = ?, callback_origins = ?,"
            + " max_backlog = ?, max_rate = ? WHERE id = ?")) {
      ps.setString(1, t.name());
      ps.setString(2, t.callbackOrigins().isEmpty() ? null : String.join(" ", t.callbackOrigins()));
      if (t.maxBacklog() == null) {
        ps.setNull(3, Types.BIGINT);
      } else {
        ps.setLong(3, t.maxBacklog());
      }
      ps.setString(4, t.maxRate());
      ps.setString(5, id);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot store the tenant: " + e.getMessage(), e);
    }
    snapshot = null;
    return t;
  }

  private static void bind(PreparedStatement ps, int at, Tenant t) throws SQLException {
    ps.setString(at, t.callbackOrigins().isEmpty() ? null : String.join(" ", t.callbackOrigins()));
    if (t.maxBacklog() == null) {
      ps.setNull(at + 1, Types.BIGINT);
    } else {
      ps.setLong(at + 1, t.maxBacklog());
    }
    ps.setString(at + 2, t.maxRate());
  }

  /** Lets {@code tenant} use a definition of the default tenant; false if it already could. */
  public boolean grant(String definition, String tenant) {
    if (grantsOf(tenant).contains(definition)) {
      return false;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "INSERT INTO herald_server_definition_grant (definition, tenant) VALUES (?, ?)")) {
      ps.setString(1, definition);
      ps.setString(2, tenant);
      ps.executeUpdate();
    } catch (SQLException e) {
      snapshot = null;
      if (grantsOf(tenant).contains(definition)) {
        return false; // granted by another server meanwhile
      }
      throw new ApiTokens.StoreUnavailable("cannot store the grant: " + e.getMessage(), e);
    }
    snapshot = null;
    return true;
  }

  /** Takes a grant back; false if there was none. */
  public boolean revokeGrant(String definition, String tenant) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "DELETE FROM herald_server_definition_grant WHERE definition = ? AND tenant = ?")) {
      ps.setString(1, definition);
      ps.setString(2, tenant);
      boolean removed = ps.executeUpdate() > 0;
      snapshot = null;
      return removed;
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot remove the grant: " + e.getMessage(), e);
    }
  }

  /** Forgets every grant of a definition (it was deleted). */
  void forgetDefinition(String definition) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("DELETE FROM herald_server_definition_grant WHERE definition = ?")) {
      ps.setString(1, definition);
      ps.executeUpdate();
      snapshot = null;
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot remove the grants: " + e.getMessage(), e);
    }
  }

  private static String checkName(String name) {
    if (name.isBlank() || name.length() > 200 || name.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.invalid("name", "must be 1 to 200 characters, without control characters");
    }
    return name.strip();
  }

  private static Long checkBacklog(Long n) {
    if (n != null && n < 1) {
      throw ApiException.invalid("maxBacklog", "must be at least 1, or null for no limit; was " + n);
    }
    return n;
  }

  /** Origins as {@code scheme://host:port}, each checked. */
  static List<String> checkOrigins(List<String> origins) {
    if (origins == null) {
      return List.of();
    }
    if (origins.size() > 50) {
      throw ApiException.invalid("callbackOrigins", "holds " + origins.size() + " origins; the limit is 50");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < origins.size(); i++) {
      out.add(CallbackOrigins.origin(origins.get(i), "callbackOrigins[" + i + "]"));
    }
    return List.copyOf(out);
  }
}
