package dev.herald.server;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code java -jar herald-server.jar token create --name NAME --role admin|client} and {@code token
 * list}: the server's database configuration (same properties, environment and arguments), no web
 * server, no delivery. The embedded H2 database admits one process at a time, so with it this works
 * while the server is stopped; while it runs, use {@code POST /api/v1/tokens}.
 */
final class TokenCommand {
  private TokenCommand() {}

  /** Not a {@code @Configuration}: the server's component scan must not pick it up. */
  @EnableAutoConfiguration
  @EnableConfigurationProperties(ServerProperties.class)
  static final class Context {}

  static int run(String[] args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    String action = args.length > 0 ? args[0] : "";
    String name = null;
    String role = null;
    String tenant = null;
    List<String> springArgs = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--name") || a.equals("--role") || a.equals("--tenant")) {
        if (i + 1 == args.length) {
          err.println(a + " needs a value");
          return 2;
        }
        if (a.equals("--name")) {
          name = args[++i];
        } else if (a.equals("--role")) {
          role = args[++i];
        } else {
          tenant = args[++i];
        }
      } else if (a.startsWith("--name=")) {
        name = a.substring("--name=".length());
      } else if (a.startsWith("--role=")) {
        role = a.substring("--role=".length());
      } else if (a.startsWith("--tenant=")) {
        tenant = a.substring("--tenant=".length());
      } else {
        springArgs.add(a);
      }
    }
    if (!action.equals("create") && !action.equals("list")) {
      err.println("usage: java -jar herald-server.jar token create --name NAME --role admin|client [--tenant ID]"
          + " [--spring.datasource.url=...]");
      err.println("       java -jar herald-server.jar token list");
      return 2;
    }
    Role r = null;
    if (action.equals("create")) {
      r = Role.parse(role);
      if (name == null || name.isBlank() || r == null) {
        err.println("token create needs --name NAME and --role admin|client");
        return 2;
      }
    }
    springArgs.add("--herald.enabled=false");
    // no engine here, so no heraldEngine contributor for application.properties' readiness group
    springArgs.add("--management.endpoint.health.validate-group-membership=false");
    springArgs.add("--logging.level.root=WARN");
    springArgs.add("--spring.main.log-startup-info=false");
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(Context.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .listeners(new EmbeddedDatabaseDefaults(), new SealedProperties())
        .run(springArgs.toArray(String[]::new))) {
      DataSource ds = ctx.getBean(DataSource.class);
      ServerSchema.migrate(ds, Clock.systemUTC());
      ApiTokens tokens = new ApiTokens(ds, Clock.systemUTC());
      if (action.equals("list")) {
        for (ApiTokens.Info t : tokens.list()) {
          out.printf("%s  %-7s %-8s %-12s %-14s %s%n", t.id(), t.role().text(), t.active() ? "active" : "revoked",
              t.hint(), t.tenant() == null ? "every tenant" : t.tenant(), t.name());
        }
        return 0;
      }
      if (tenant != null && new Tenants(ds, Clock.systemUTC()).find(tenant).isEmpty()) {
        err.println("no tenant '" + tenant + "' (create it with POST /api/v1/tenants)");
        return 2;
      }
      String t = tenant != null ? tenant : r == Role.ADMIN ? null : Tenants.DEFAULT;
      ApiTokens.Created c = tokens.create(name, r, t, "token command");
      out.println("Created " + r.text() + " token '" + c.info().name() + "' (id " + c.info().id() + ", "
          + (t == null ? "every tenant" : "tenant " + t) + "). It is shown only this once:");
      out.println();
      out.println("    " + c.token());
      out.println();
      return 0;
    } catch (ApiException e) {
      err.println(e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      if (inUse(e)) {
        err.println("The embedded database is in use by a running Herald server (one process at a time).");
        err.println("Create the token through the API instead (POST /api/v1/tokens with an admin token),"
            + " or stop the server first.");
      } else {
        err.println("token " + action + " failed: " + e.getMessage());
      }
      return 1;
    }
  }

  private static boolean inUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getErrorCode() == 90020) { // H2: DATABASE_ALREADY_OPEN
        return true;
      }
    }
    return false;
  }
}
