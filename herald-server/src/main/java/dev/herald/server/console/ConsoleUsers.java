package dev.herald.server.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * Console users in {@code herald_server_user}; passwords stored as bcrypt hashes only. Each user has
 * a stamp that changes with their role, status, tenant or password: a session that began under
 * another stamp ends at its next request ({@link SessionCheck}).
 */
public final class ConsoleUsers implements UserDetailsService {
  /** Shortest password accepted. */
  static final int MIN_PASSWORD = PasswordRules.MIN_LENGTH;

  /**
   * A user, without the password hash.
   *
   * @param tenant the tenant they see and act for; null for every tenant
   */
  public record Info(String username, ConsoleRole role, boolean enabled, String tenant, long stamp, Instant createdAt,
      String createdBy) {}

  private final DataSource dataSource;
  private final PasswordEncoder encoder;
  private final Clock clock;

  public ConsoleUsers(DataSource dataSource, PasswordEncoder encoder, Clock clock) {
    this.dataSource = dataSource;
    this.encoder = encoder;
    this.clock = clock;
  }

  @Override
  public UserDetails loadUserByUsername(String username) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT password_hash, role, enabled, tenant, stamp FROM herald_server_user WHERE username = ?")) {
      ps.setString(1, username);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new UsernameNotFoundException("no console user " + username);
        }
        ConsoleRole role = ConsoleRole.valueOf(rs.getString(2));
        return new ConsoleUser(username, rs.getString(1), rs.getBoolean(3), role, rs.getString(4), rs.getLong(5));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read console users: " + e.getMessage(), e);
    }
  }

  /** As {@link #create(String, String, ConsoleRole, String, String)}, a user of every tenant. */
  public Info create(String username, String password, ConsoleRole role, String createdBy) {
    return create(username, password, role, null, createdBy);
  }

  /**
   * Adds a user.
   *
   * @param tenant the tenant they are limited to; null for every tenant
   * @throws IllegalArgumentException naming the field at fault: username, password or role
   */
  public Info create(String username, String password, ConsoleRole role, String tenant, String createdBy) {
    if (username == null || !username.strip().matches("[A-Za-z0-9._@-]{1,100}")) {
      throw new IllegalArgumentException("username: 1 to 100 letters, digits or . _ @ -");
    }
    PasswordRules.check(username.strip(), password);
    if (role == null) {
      throw new IllegalArgumentException("role: one of admin, operator, viewer");
    }
    if (find(username.strip()).isPresent()) {
      throw new IllegalArgumentException("username: " + username.strip() + " exists already");
    }
    Info info = new Info(username.strip(), role, true, tenant, 0, clock.instant(), bounded(createdBy));
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_user"
            + " (username, password_hash, role, enabled, created_at, created_by, tenant, stamp)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, 0)")) {
      ps.setString(1, info.username());
      ps.setString(2, encoder.encode(password));
      ps.setString(3, role.name());
      ps.setBoolean(4, true);
      ps.setLong(5, info.createdAt().toEpochMilli());
      ps.setString(6, info.createdBy());
      ps.setString(7, tenant);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot store the console user: " + e.getMessage(), e);
    }
    return info;
  }

  private static String bounded(String s) {
    return s == null || s.length() <= 200 ? s : s.substring(0, 200);
  }

  static void checkPassword(String password) {
    PasswordRules.check(null, password);
  }

  public List<Info> list() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT username, role, enabled, tenant, stamp, created_at, created_by"
            + " FROM herald_server_user ORDER BY username");
        ResultSet rs = ps.executeQuery()) {
      List<Info> out = new ArrayList<>();
      while (rs.next()) {
        out.add(new Info(rs.getString(1), ConsoleRole.valueOf(rs.getString(2)), rs.getBoolean(3), rs.getString(4),
            rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6)), rs.getString(7)));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list console users: " + e.getMessage(), e);
    }
  }

  public Optional<Info> find(String username) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT username, role, enabled, tenant, stamp, created_at,"
            + " created_by FROM herald_server_user WHERE username = ?")) {
      ps.setString(1, username);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new Info(rs.getString(1), ConsoleRole.valueOf(rs.getString(2)),
            rs.getBoolean(3), rs.getString(4), rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6)), rs.getString(7)))
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read console users: " + e.getMessage(), e);
    }
  }

  /** As {@link #update(String, ConsoleRole, boolean, String)}, keeping the user's tenant. */
  public void update(String username, ConsoleRole role, boolean enabled) {
    Info u = find(username).orElseThrow(() -> new IllegalArgumentException("username: no console user " + username));
    update(username, role, enabled, u.tenant());
  }

  /**
   * Changes a user's role, whether they may log in and their tenant; the last enabled admin of every
   * tenant cannot lose any of it. Their sessions end.
   *
   * @throws IllegalArgumentException if there is no such user, or it is the last enabled admin
   */
  public void update(String username, ConsoleRole role, boolean enabled, String tenant) {
    List<Info> all = list();
    Info u = all.stream().filter(x -> x.username().equals(username)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("username: no console user " + username));
    boolean otherAdmin = all.stream().anyMatch(x -> x.enabled() && x.role() == ConsoleRole.ADMIN && x.tenant() == null
        && !x.username().equals(username));
    if (u.role() == ConsoleRole.ADMIN && u.enabled() && u.tenant() == null
        && (role != ConsoleRole.ADMIN || !enabled || tenant != null) && !otherAdmin) {
      throw new IllegalArgumentException("role: " + username + " is the last enabled admin of every tenant");
    }
    if (u.role() == role && u.enabled() == enabled && java.util.Objects.equals(u.tenant(), tenant)) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "UPDATE herald_server_user SET role = ?, enabled = ?, tenant = ?, stamp = stamp + 1 WHERE username = ?")) {
      ps.setString(1, role.name());
      ps.setBoolean(2, enabled);
      ps.setString(3, tenant);
      ps.setString(4, username);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot change the console user: " + e.getMessage(), e);
    }
  }

  /**
   * Sets a user's password (checked by {@link PasswordRules}); their sessions end. Returns the new stamp.
   *
   * @throws IllegalArgumentException naming {@code password} or {@code username}
   */
  public long setPassword(String username, String password) {
    Info u = find(username).orElseThrow(() -> new IllegalArgumentException("username: no console user " + username));
    PasswordRules.check(username, password);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "UPDATE herald_server_user SET password_hash = ?, stamp = stamp + 1 WHERE username = ?")) {
      ps.setString(1, encoder.encode(password));
      ps.setString(2, username);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot change the password: " + e.getMessage(), e);
    }
    return u.stamp() + 1;
  }

  /** Whether {@code password} is the user's. */
  public boolean passwordMatches(String username, String password) {
    try {
      return encoder.matches(password, loadUserByUsername(username).getPassword());
    } catch (UsernameNotFoundException e) {
      return false;
    }
  }

  public long count() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM herald_server_user");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot count console users: " + e.getMessage(), e);
    }
  }
}
