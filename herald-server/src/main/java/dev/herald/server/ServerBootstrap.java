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

  ServerBootstrap(Herald herald, ApiTokens tokens, ServerProperties properties) {
    if (properties.getMaxBatch() < 1) {
      throw new IllegalStateException("herald.server.max-batch must be at least 1, was " + properties.getMaxBatch());
    }
    if (properties.getMaxRequestSize().toBytes() < 1024) {
      throw new IllegalStateException("herald.server.max-request-size must be at least 1KB, was "
          + properties.getMaxRequestSize());
    }
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
      created = tokens.create("initial-admin", Role.ADMIN, "first start").token();
    }
    this.initialToken = created;
  }

  /** The admin token created at this start, or null. */
  String initialToken() {
    return initialToken;
  }
}
