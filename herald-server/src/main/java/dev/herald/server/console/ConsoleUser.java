package dev.herald.server.console;

import java.util.List;
import org.springframework.security.core.userdetails.User;

/**
 * A logged-in console user: their role, their tenant (null for every tenant) and the stamp their
 * session began under ({@link SessionCheck} ends the session when the stored stamp differs). What
 * they may do is {@link dev.herald.server.Access}'s answer for their role, not Spring Security
 * authorities (they have none).
 */
public final class ConsoleUser extends User {
  private final ConsoleRole role;
  private final String tenant;
  private final long stamp;

  ConsoleUser(String username, String password, boolean enabled, ConsoleRole role, String tenant, long stamp) {
    super(username, password, enabled, true, true, true, List.of());
    this.role = role;
    this.tenant = tenant;
    this.stamp = stamp;
  }

  public ConsoleRole role() {
    return role;
  }

  public String tenant() {
    return tenant;
  }

  public long stamp() {
    return stamp;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
