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
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.crypto.password.PasswordEncoder;

/** Console users in {@code herald_server_user}; passwords stored as bcrypt hashes only. */
public final class ConsoleUsers implements UserDetailsService {
  /** Shortest password accepted. */
  static final int MIN_PASSWORD = 12;

  /** A user, without the password hash. */
  public record Info(String username, ConsoleRole role, boolean enabled, Instant createdAt, String createdBy) {}

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
            "SELECT password_hash, role, enabled FROM herald_server_user WHERE username = ?")) {
      ps.setString(1, username);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new UsernameNotFoundException("no console user " + username);
        }
        ConsoleRole role = ConsoleRole.valueOf(rs.getString(2));
        return User.withUsername(username).password(rs.getString(1)).disabled(!rs.getBoolean(3))
            .authorities(List.of(new SimpleGrantedAuthority(role.authority()))).build();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read console users: " + e.getMessage(), e);
    }
  }

  /**
   * Adds a user.
   *
   * @throws IllegalArgumentException naming the field at fault: username, password or role
   */
  public Info create(String username, String password, ConsoleRole role, String createdBy) {
    if (username == null || !username.strip().matches("[A-Za-z0-9._@-]{1,100}")) {
      throw new IllegalArgumentException("username: 1 to 100 letters, digits or . _ @ -");
    }
    checkPassword(password);
    if (role == null) {
      throw new IllegalArgumentException("role: one of admin, operator, viewer");
    }
    if (find(username.strip()).isPresent()) {
      throw new IllegalArgumentException("username: " + username.strip() + " exists already");
    }
    Info info = new Info(username.strip(), role, true, clock.instant(), createdBy);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_user"
            + " (username, password_hash, role, enabled, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, info.username());
      ps.setString(2, encoder.encode(password));
      ps.setString(3, role.name());
      ps.setBoolean(4, true);
      ps.setLong(5, info.createdAt().toEpochMilli());
      ps.setString(6, createdBy);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot store the console user: " + e.getMessage(), e);
    }
    return info;
  }

  static void checkPassword(String password) {
    if (password == null || password.length() < MIN_PASSWORD || password.length() > 72) {
      throw new IllegalArgumentException("password: " + MIN_PASSWORD + " to 72 characters");
    }
  }

  public List<Info> list() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT username, role, enabled, created_at, created_by FROM herald_server_user ORDER BY username");
        ResultSet rs = ps.executeQuery()) {
      List<Info> out = new ArrayList<>();
      while (rs.next()) {
        out.add(new Info(rs.getString(1), ConsoleRole.valueOf(rs.getString(2)), rs.getBoolean(3),
            Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5)));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list console users: " + e.getMessage(), e);
    }
  }

  public Optional<Info> find(String username) {
    return list().stream().filter(u -> u.username().equals(username)).findFirst();
  }

  /**
   * Changes a user's role and whether they may log in; the last enabled admin cannot lose either.
   *
   * @throws IllegalArgumentException if there is no such user, or it is the last enabled admin
   */
  public void update(String username, ConsoleRole role, boolean enabled) {
    List<Info> all = list();
    Info u = all.stream().filter(x -> x.username().equals(username)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("username: no console user " + username));
    boolean otherAdmin = all.stream().anyMatch(x -> x.enabled() && x.role() == ConsoleRole.ADMIN
        && !x.username().equals(username));
    if (u.role() == ConsoleRole.ADMIN && u.enabled() && (role != ConsoleRole.ADMIN || !enabled) && !otherAdmin) {
      throw new IllegalArgumentException("role: " + username + " is the last enabled admin");
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "UPDATE herald_server_user SET role = ?, enabled = ? WHERE username = ?")) {
      ps.setString(1, role.name());
      ps.setBoolean(2, enabled);
      ps.setString(3, username);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot change the console user: " + e.getMessage(), e);
    }
  }

  public long count() {
    return list().size();
  }
}
