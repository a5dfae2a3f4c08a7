package dev.herald.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.SystemConfig;

/**
 * Qpid Broker-J speaking AMQP 0-9-1 (what RabbitMQ speaks) in the test JVM, in memory, on a loopback
 * port that {@link #stop()} and {@link #start()} keep: an operator's broker, broken and mended.
 */
final class EmbeddedBroker implements AutoCloseable {
  private final Path dir;
  private SystemLauncher launcher;
  private int port;

  EmbeddedBroker() throws Exception {
    this.dir = Files.createTempDirectory("herald-server-qpid");
    start();
  }

  int port() {
    return port;
  }

  void start() throws Exception {
    Path config = dir.resolve("config.json");
    Files.writeString(config, """
        {
          "name": "herald-server-test",
          "modelVersion": "9.0",
          "authenticationproviders": [ {
            "name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
            "users": [ { "name": "guest", "type": "managed", "password": "guest" } ]
          } ],
          "ports": [ {
            "name": "AMQP", "port": "%d", "bindingAddress": "127.0.0.1",
            "protocols": [ "AMQP_0_9_1" ], "authenticationProvider": "plain",
            "virtualhostaliases": [ { "name": "defaultAlias", "type": "defaultAlias" } ]
          } ],
          "virtualhostnodes": [ {
            "name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
            "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"
          } ]
        }
        """.formatted(port));
    AtomicReference<SystemConfig<?>> system = new AtomicReference<>();
    SystemLauncher l = new SystemLauncher(new SystemLauncherListener.DefaultSystemLauncherListener() {
      @Override
      public void onContainerResolve(SystemConfig<?> systemConfig) {
        system.set(systemConfig);
      }
    });
    Map<String, Object> attributes = new HashMap<>();
    attributes.put("type", "Memory");
    attributes.put("initialConfigurationLocation", config.toUri().toURL().toExternalForm());
    attributes.put("startupLoggedToSystemOut", false);
    attributes.put("context", Map.of("qpid.work_dir", dir.resolve("work").toString(), "qpid.amqp_port",
        Integer.toString(port)));
    l.startup(attributes);
    launcher = l;
    Broker<?> broker = system.get().getContainer(Broker.class);
    port = broker.getPorts().iterator().next().getBoundPort();
  }

  void stop() {
    if (launcher != null) {
      launcher.shutdown();
      launcher = null;
    }
  }

  @Override
  public void close() {
    stop();
  }
}
