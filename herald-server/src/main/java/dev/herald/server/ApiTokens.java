package dev.herald.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * API tokens, in {@code herald_server_token}. A token is {@code hrd_} and 43 characters of base64url:
 * 256 random bits from {@link SecureRandom}. Only its SHA-256 hash is stored.
 *
 * <p>Why SHA-256 and not bcrypt/scrypt/Argon2: those slow hashes exist to protect low-entropy
 * passwords from guessing after a database leak. A 256-bit random token cannot be guessed however
 * fast the hash is, so a slow hash would add no protection; it would only cost tens of milliseconds
 * of CPU on every API call (an easy denial of service) and, being salted, would rule out finding the
 * token by an indexed lookup of its hash. A lookup by hash also leaks nothing through timing about
 * the token itself.
 */
public final class ApiTokens {
  static final String PREFIX = "hrd_";
  private static final int MIN_BOOTSTRAP_LENGTH = 32;
  private static final long LAST_USED_RESOLUTION_MS = 60_000;

  /**
   * A stored token, without its secret.
   *
   * @param tenant the tenant it acts for; null for an admin token of every tenant (an operator's)
   */
  public record Info(String id, String name, Role role, String tenant, String hint, Instant createdAt, String createdBy,
      Instant lastUsedAt, Instant revokedAt) {
    public boolean active() {
      return revokedAt == null;
    }
  }

  /** A token just created: the only time its secret is known. */
  public record Created(Info info, String token) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  ApiTokens(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  static String hash(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static void checkName(String name, String field) {
    if (name == null || name.isBlank()) {
      throw ApiException.invalid(field, "is required: a name that says who or what uses the token");
    }
    if (name.length() > 100 || name.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.invalid(field, "must be at most 100 characters, without control characters");
    }
  }

  /**
   * Creates a token.
   *
   * @param tenant the tenant it acts for; null only for an admin token of every tenant
   */
  public Created create(String name, Role role, String tenant, String createdBy) {
    checkName(name, "name");
    if (tenant == null && role != Role.ADMIN) {
      throw ApiException.invalid("tenant", "is required for a client token: the tenant whose notices it handles");
    }
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    return new Created(insert(name.strip(), role, tenant, token, createdBy), token);
  }

  /**
   * Makes sure {@code token} (from herald.server.bootstrap-admin-token) is an active admin token.
   * Returns true if it was added now.
   */
  boolean ensureBootstrap(String token) {
    if (token.strip().length() < MIN_BOOTSTRAP_LENGTH) {
      throw new IllegalStateException("herald.server.bootstrap-admin-token must be at least " + MIN_BOOTSTRAP_LENGTH
          + " characters (use e.g. `openssl rand -base64 32`)");
    }
    String h = hash(token.strip());
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT revoked_at FROM herald_server_token WHERE token_hash = ?")) {
      ps.setString(1, h);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return false; // present (a revoked one stays revoked: the operator revoked it on purpose)
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read API tokens: " + e.getMessage(), e);
    }
    insert("bootstrap", Role.ADMIN, null, token.strip(), "herald.server.bootstrap-admin-token");
    return true;
  }

  private Info insert(String name, Role role, String tenant, String token, String createdBy) {
    Info info = new Info(UUID.randomUUID().toString(), name, role, tenant,
        token.substring(0, Math.min(8, token.length())) + "...", clock.instant(), Views.bounded(createdBy, 200), null,
        null);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_token"
            + " (id, name, role, token_hash, hint, created_at, created_by, tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, info.id());
      ps.setString(2, info.name());
      ps.setString(3, role.text());
      ps.setString(4, hash(token));
      ps.setString(5, info.hint());
      ps.setLong(6, info.createdAt().toEpochMilli());
      ps.setString(7, info.createdBy());
      ps.setString(8, tenant);
      ps.executeUpdate();
      return info;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot store the API token: " + e.getMessage(), e);
    }
  }

  /** The active token whose secret this is, if any; notes (at most once a minute) that it was used. */
  Optional<Info> authenticate(String presented) {
    if (presented == null || presented.isEmpty() || presented.length() > 200) {
      return Optional.empty();
    }
    String h = hash(presented);
    Info info;
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(SELECT + " WHERE token_hash = ? AND revoked_at IS NULL")) {
        ps.setString(1, h);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          info = read(rs);
        }
      }
      long now = clock.millis();
      if (info.lastUsedAt() == null || now - info.lastUsedAt().toEpochMilli() > LAST_USED_RESOLUTION_MS) {
        try (PreparedStatement ps = c.prepareStatement("UPDATE herald_server_token SET last_used_at = ? WHERE id = ?")) {
          ps.setLong(1, now);
          ps.setString(2, info.id());
          ps.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new StoreUnavailable("cannot check the API token: the database does not answer (" + e.getMessage() + ")", e);
    }
    return Optional.of(info);
  }

  public List<Info> list() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(SELECT + " ORDER BY created_at, id");
        ResultSet rs = ps.executeQuery()) {
      List<Info> out = new ArrayList<>();
      while (rs.next()) {
        out.add(read(rs));
      }
      return out;
    } catch (SQLException e) {
      throw new StoreUnavailable("cannot list API tokens: " + e.getMessage(), e);
    }
  }

  Optional<Info> find(String id) {
    return list().stream().filter(t -> t.id().equals(id)).findFirst();
  }

  long countActive() {
    return list().stream().filter(Info::active).count();
  }

  /** The tokens {@code caller} sees: a tenant's own, or every one for a caller of every tenant. */
  public List<Info> list(Caller caller) {
    return list().stream().filter(t -> Access.touches(caller, t.tenant())).toList();
  }

  /**
   * Revokes a token; it is refused from then on.
   *
   * @throws ApiException 404 if there is no such token (or it is another tenant's), 409 if it is the
   *     last active admin token of every tenant
   */
  public Info revoke(String id, Caller caller) {
    List<Info> all = list();
    Info target = all.stream().filter(t -> t.id().equals(id) && Access.touches(caller, t.tenant()))
        .findFirst()
        .orElseThrow(() -> ApiException.notFound("no API token with id " + id));
    if (!target.active()) {
      return target;
    }
    if (target.role() == Role.ADMIN && target.tenant() == null && all.stream()
        .noneMatch(t -> t.active() && t.role() == Role.ADMIN && t.tenant() == null && !t.id().equals(id))) {
      throw ApiException.conflict("last_admin_token",
          "token " + id + " is the last active admin token; create another admin token before revoking it");
    }
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "UPDATE herald_server_token SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
      ps.setLong(1, now.toEpochMilli());
      ps.setString(2, id);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreUnavailable("cannot revoke the API token: " + e.getMessage(), e);
    }
    return new Info(target.id(), target.name(), target.role(), target.tenant(), target.hint(), target.createdAt(),
        target.createdBy(), target.lastUsedAt(), now);
  }

  private static final String SELECT = "SELECT id, name, role, hint, created_at, created_by, last_used_at,"
      + " revoked_at, tenant FROM herald_server_token";

  private static Info read(ResultSet rs) throws SQLException {
    return new Info(rs.getString(1), rs.getString(2), Role.parse(rs.getString(3)), rs.getString(9), rs.getString(4),
        instant(rs, 5), rs.getString(6), instant(rs, 7), instant(rs, 8));
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  /** The token table cannot be read: the database is down. Answered with 503. */
  public static final class StoreUnavailable extends RuntimeException {
    StoreUnavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
