package dev.herald.server.console;

import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * The first console user: when there is none, {@code admin} is created with the password from
 * {@code herald.server.console.admin-password}, or a random one printed once in the log.
 */
final class ConsoleBootstrap implements InitializingBean {
  private static final Logger log = LoggerFactory.getLogger(ConsoleBootstrap.class);

  private final ConsoleUsers users;
  private final String configuredPassword;
  private final dev.herald.server.FirstStartSecrets firstStart;

  ConsoleBootstrap(ConsoleUsers users, String configuredPassword, dev.herald.server.FirstStartSecrets firstStart) {
    this.users = users;
    this.configuredPassword = configuredPassword;
    this.firstStart = firstStart;
  }

  @Override
  public void afterPropertiesSet() {
    if (users.count() > 0) {
      return;
    }
    if (configuredPassword != null && !configuredPassword.isBlank()) {
      users.create("admin", configuredPassword, ConsoleRole.ADMIN, "herald.server.console.admin-password");
      log.info("Herald console: created user 'admin' with the password from herald.server.console.admin-password");
      return;
    }
    byte[] bytes = new byte[18];
    new SecureRandom().nextBytes(bytes);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    users.create("admin", password, ConsoleRole.ADMIN, "first start");
    java.nio.file.Path file = firstStart.write("console user admin, password", password);
    if (file == null) {
      log.warn("No console user existed, so 'admin' was created; no file could take its password, so it is shown"
          + " here, once: {}", password);
      return;
    }
    log.info("""

        ==================================================================================================
        No console user existed, so 'admin' was created. Its password is in this file, readable by this
        user only (not in the log); keep it somewhere safe, then delete the file:

            {}

        Log in at /console, change the password (Account page) and add users for people (Users page);
        roles: admin, operator, viewer.
        ==================================================================================================""",
        file);
  }
}
