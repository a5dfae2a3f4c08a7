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
  private final SecretBox box;
  private final FirstStartSecrets firstStart;

  StartupReport(ServerBootstrap bootstrap, ApiTokens tokens, Environment environment, SecretBox box,
      FirstStartSecrets firstStart) {
    this.bootstrap = bootstrap;
    this.tokens = tokens;
    this.environment = environment;
    this.box = box;
    this.firstStart = firstStart;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web) || web.getWebServer() == null) {
      return;
    }
    String host = environment.getProperty("server.address", "localhost");
    String base = "http://" + host + ":" + web.getWebServer().getPort();
    warnings();
    log.info("Herald server ready at {}/api/v1 (OpenAPI {}/api/v1/openapi.json, health {}/actuator/health); {}",
        base, base, base, database());
    String token = bootstrap.initialToken();
    if (token != null && bootstrap.secretsFile() == null) {
      log.warn("""

          ==================================================================================================
          No API token existed, so this admin token was created. No file could take it, so it is shown
          here, once; keep it safe:

              {}
          ==================================================================================================""",
          token);
    } else if (token != null) {
      log.info("""

          ==================================================================================================
          No API token existed, so an admin token was created. It is in this file, readable by this user
          only (not in the log, which others may read); keep it somewhere safe, then delete the file:

              {}

          Try:  curl -H "Authorization: Bearer $(grep -o 'hrd_[A-Za-z0-9_-]*' {})" {}/api/v1/definitions
          More: POST /api/v1/tokens with this token, or stop the server and run
                java -jar herald-server.jar token create --name NAME --role admin|client
          ==================================================================================================""",
          firstStart.file(), firstStart.file(), base);
    } else if (tokens.countActive() == 0) {
      log.warn("Herald server: there is no active API token, so every API call gets 401. Stop the server and run"
          + " `java -jar herald-server.jar token create --name NAME --role admin`, or start it with"
          + " herald.server.bootstrap-admin-token set.");
    }
  }

  /** Warnings about how the server runs: secrets stored unsealed, a JVM that would live on after OutOfMemoryError. */
  void warnings() {
    if (!box.sealing()) {
      log.warn("Herald server: herald.server.secret-key is not set, so signing secrets are stored in plain text in the"
          + " database. Set HERALD_SERVER_SECRET_KEY (32 random bytes, base64: `openssl rand -base64 32`) to seal them.");
    }
    if (!exitsOnOutOfMemory()) {
      log.warn("Herald server: the JVM runs without -XX:+ExitOnOutOfMemoryError. After an OutOfMemoryError a thread"
          + " of any part (the database, the web server, the engine) may be dead while the process lives on, broken;"
          + " with the flag it exits and is restarted (nothing acknowledged is lost). Start it with the flag, as"
          + " bin/herald-server does.");
    }
  }

  static boolean exitsOnOutOfMemory() {
    try {
      var bean = java.lang.management.ManagementFactory.getPlatformMXBean(
          com.sun.management.HotSpotDiagnosticMXBean.class);
      return bean != null && Boolean.parseBoolean(bean.getVMOption("ExitOnOutOfMemoryError").getValue());
    } catch (RuntimeException e) {
      return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
          .contains("-XX:+ExitOnOutOfMemoryError");
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
