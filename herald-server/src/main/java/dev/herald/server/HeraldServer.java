package dev.herald.server;

import java.util.Arrays;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The Herald server: Herald (through the Spring Boot starter) with the HTTP webhook channel, behind
 * a REST API under {@code /api/v1} with API tokens.
 *
 * <pre>
 * java -jar herald-server.jar                                       # serve (embedded H2 in ./data)
 * java -jar herald-server.jar token create --name ops --role admin  # print a new token, once
 * java -jar herald-server.jar token list
 * java -jar herald-server.jar health                                # exit 0 if this host's server is ready
 * java -jar herald-server.jar secret new-key                        # a key for herald.server.secret-key
 * java -jar herald-server.jar aot-cache herald-server.aot           # the JVM's AOT cache (JDK 25+), by a training run
 * </pre>
 */
@SpringBootApplication
@EnableConfigurationProperties({ServerProperties.class, HttpChannelProperties.class})
public class HeraldServer {

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("token")) {
      System.exit(TokenCommand.run(Arrays.copyOfRange(args, 1, args.length)));
    }
    if (args.length > 0 && args[0].equals("secret")) {
      System.exit(SecretCommand.run(Arrays.copyOfRange(args, 1, args.length)));
    }
    if (args.length > 0 && args[0].equals("health")) {
      System.exit(HealthCommand.run(Arrays.copyOfRange(args, 1, args.length), System.getenv(), System.out));
    }
    if (args.length > 0 && args[0].equals("aot-cache")) {
      System.exit(AotCacheCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out));
    }
    if (args.length > 0 && args[0].equals("aot-training")) { // the child JVM of aot-cache
      System.exit(AotCacheCommand.train(System.out));
    }
    if (args.length > 0 && args[0].equals("aot-check")) { // started with -XX:AOTMode=on: the cache mapped
      System.exit(0);
    }
    StopSignal.exitZeroOnTerm();
    builder().run(args);
  }

  /** The server application, with its defaults (embedded H2 unless a data source URL is set). */
  public static SpringApplicationBuilder builder() {
    return new SpringApplicationBuilder(HeraldServer.class)
        .listeners(new EmbeddedDatabaseDefaults(), new NodeIdDefault(), new SealedProperties());
  }
}
