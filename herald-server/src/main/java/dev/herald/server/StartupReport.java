package dev.herald.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/** The start-up banner line: where the API is, where the data is, and how to get a token. */
final class StartupReport implements ApplicationListener<ApplicationReadyEvent> {
  private static final Logger log = LoggerFactory.getLogger(HeraldServer.class);

  private final ServerBootstrap bootstrap;
  private final ApiTokens tokens;
  private final Environment environment;

  StartupReport(ServerBootstrap bootstrap, ApiTokens tokens, Environment environment) {
    this.bootstrap = bootstrap;
    this.tokens = tokens;
    this.environment = environment;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web) || web.getWebServer() == null) {
      return;
    }
    String host = environment.getProperty("server.address", "localhost");
    String base = "http://" + host + ":" + web.getWebServer().getPort();
    log.info("Herald server ready at {}/api/v1 (OpenAPI {}/api/v1/openapi.json, health {}/actuator/health); {}",
        base, base, base, database());
    String token = bootstrap.initialToken();
    if (token != null) {
      log.info("""

          ==================================================================================================
          No API token existed, so this admin token was created. It is shown only this once; keep it safe:

              {}

          Try:  curl -H 'Authorization: Bearer {}' {}/api/v1/definitions
          More: POST /api/v1/tokens with this token, or stop the server and run
                java -jar herald-server.jar token create --name NAME --role admin|client
          ==================================================================================================""",
          token, token, base);
    } else if (tokens.countActive() == 0) {
      log.warn("Herald server: there is no active API token, so every API call gets 401. Stop the server and run"
          + " `java -jar herald-server.jar token create --name NAME --role admin`, or start it with"
          + " herald.server.bootstrap-admin-token set.");
    }
  }

  private String database() {
    String file = environment.getProperty(EmbeddedDatabaseDefaults.EMBEDDED_FILE);
    if (file != null) {
      java.nio.file.Path p = java.nio.file.Path.of(file);
      return "data folder " + p.getParent() + " (embedded H2, " + p.getFileName() + ".mv.db)";
    }
    String url = environment.getProperty("spring.datasource.url", "");
    return "database " + url.replaceAll("[?;].*", ""); // no parameters: they may hold a password
  }
}
