package dev.herald.server;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start sets up: the built-in definition of direct callbacks (created once, then left to
 * admins to change), and a first admin token when the server has none: from
 * {@code herald.server.bootstrap-admin-token}, or else created here and printed once by {@link
 * StartupReport}.
 */
final class ServerBootstrap {
  private static final Logger log = LoggerFactory.getLogger(ServerBootstrap.class);

  private final String initialToken;
  private java.nio.file.Path secretsFile;

  ServerBootstrap(Herald herald, ApiTokens tokens, ServerProperties properties, DefinitionSecrets secrets,
      FirstStartSecrets firstStart) {
    if (properties.getMaxBatch() < 1) {
      throw new IllegalStateException("herald.server.max-batch must be at least 1, was " + properties.getMaxBatch());
    }
    if (properties.getMaxRequestSize().toBytes() < 1024) {
      throw new IllegalStateException("herald.server.max-request-size must be at least 1KB, was "
          + properties.getMaxRequestSize());
    }
    if (properties.getMaxRequestBytesInFlight().toBytes() < properties.getMaxRequestSize().toBytes()) {
      throw new IllegalStateException("herald.server.max-request-bytes-in-flight (" + properties.getMaxRequestBytesInFlight()
          + ") must be at least herald.server.max-request-size (" + properties.getMaxRequestSize() + ")");
    }
    resealSecrets(herald, secrets);
    if (herald.definitions().find(properties.getCallbackDefinition()).isEmpty()) {
      NoticeDefinition d = DefinitionsController.callbackDefinition(properties);
      herald.definitions().save(d);
      log.info("Herald server: created the built-in definition '{}' for direct callbacks (retry {}, {} attempts)",
          d.name(), d.retrySchedule().text(), d.maxAttempts());
    }
    String bootstrap = properties.getBootstrapAdminToken();
    String created = null;
    if (bootstrap != null && !bootstrap.isBlank()) {
      if (tokens.ensureBootstrap(bootstrap)) {
        log.info("Herald server: stored the admin token given by herald.server.bootstrap-admin-token (as 'bootstrap')");
      }
    } else if (properties.isCreateInitialToken() && tokens.countActive() == 0) {
      created = tokens.create("initial-admin", Role.ADMIN, null, "first start").token();
      secretsFile = firstStart.write("API admin token", created);
    }
    this.initialToken = created;
  }

  /** Where the token created at this start was written; null if it could be written nowhere (then it is logged). */
  java.nio.file.Path secretsFile() {
    return secretsFile;
  }

  /**
   * Seals the secret options stored in plain text (a key was set since) or under a previous key (the
   * key was rotated), so that after one start with the new key the old one is needed no more.
   */
  private static void resealSecrets(Herald herald, DefinitionSecrets secrets) {
    int n = 0;
    for (NoticeDefinition d : herald.definitions().list()) {
      if (secrets.stale(d)) {
        herald.definitions().save(secrets.seal(d));
        n++;
      }
    }
    if (n > 0) {
      log.info("Herald server: sealed the secrets of {} definition(s) under the current herald.server.secret-key", n);
    }
  }

  /** The admin token created at this start, or null. */
  String initialToken() {
    return initialToken;
  }
}
