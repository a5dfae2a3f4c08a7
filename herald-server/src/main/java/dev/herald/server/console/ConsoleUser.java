package dev.herald.server.console;

import java.util.Collection;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.userdetails.User;

/**
 * A logged-in console user: their tenant (null for every tenant) and the stamp their session began
 * under ({@link SessionCheck} ends the session when the stored stamp differs).
 */
public final class ConsoleUser extends User {
  private final String tenant;
  private final long stamp;

  ConsoleUser(String username, String password, boolean enabled, Collection<? extends GrantedAuthority> authorities,
      String tenant, long stamp) {
    super(username, password, enabled, true, true, true, authorities);
    this.tenant = tenant;
    this.stamp = stamp;
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
