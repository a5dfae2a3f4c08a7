package dev.herald.channel.amqp;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.SystemConfig;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Qpid Broker-J as an AMQP 0-9-1 broker in the test JVM, on a random loopback port. Queues and
 * persistent messages live in a Derby store under {@code dir}, so {@link #restart()} keeps them,
 * like a RabbitMQ node restarted with its disk.
 */
final class QpidBroker implements AutoCloseable {
  private static QpidBroker shared;

  private final Path dir;
  private SystemLauncher launcher;
  private int port;

  /**
   * One broker for all test classes of this JVM (it takes seconds to start), started by the first
   * class that uses it ({@code @ExtendWith(QpidBroker.Shared.class)}) and stopped when JUnit finishes.
   */
  static final class Shared implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
      synchronized (QpidBroker.class) {
        if (shared == null) {
          Path dir = Files.createTempDirectory("herald-qpid");
          shared = new QpidBroker(dir);
          context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
              .put(QpidBroker.class, (ExtensionContext.Store.CloseableResource) () -> {
                synchronized (QpidBroker.class) {
                  shared.stop();
                  shared = null;
                }
                try (var files = Files.walk(dir)) {
                  files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
              });
        }
      }
    }
  }

  static synchronized QpidBroker shared() {
    if (shared == null) {
      throw new IllegalStateException("annotate the test class with @ExtendWith(QpidBroker.Shared.class)");
    }
    return shared;
  }

  QpidBroker(Path dir) throws Exception {
    this.dir = dir;
    start(0);
  }

  int port() {
    return port;
  }

  String uri() {
    return "amqp://guest:guest@127.0.0.1:" + port;
  }

  /** A plain client connection, for test consumers and setup. */
  Connection connect() throws Exception {
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(uri());
    f.setAutomaticRecoveryEnabled(false);
    return f.newConnection("test");
  }

  /** Stops the broker (its clients see the connection drop) and starts it again on the same port. */
  void restart() throws Exception {
    stop();
    start(port);
  }

  /** Starts a stopped broker again on the same port. */
  void startAgain() throws Exception {
    start(port);
  }

  void stop() {
    if (launcher != null) {
      launcher.shutdown();
      launcher = null;
    }
  }

  private void start(int wantedPort) throws Exception {
    Path config = dir.resolve("config.json");
    Files.writeString(config, """
        {
          "name": "herald-test",
          "modelVersion": "9.0",
          "authenticationproviders": [ {
            "name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
            "users": [ { "name": "guest", "type": "managed", "password": "guest" } ]
          } ],
          "ports": [ {
            "name": "AMQP", "port": "%d", "bindingAddress": "127.0.0.1",
            "protocols": [ "AMQP_0_9_1" ], "authenticationProvider": "plain",
            "virtualhostaliases": [ { "name": "defaultAlias", "type": "defaultAlias" },
                                    { "name": "nameAlias", "type": "nameAlias" } ]
          } ],
          "virtualhostnodes": [ {
            "name": "default", "type": "DERBY", "defaultVirtualHostNode": "true",
            "storePath": "%s",
            "virtualHostInitialConfiguration": "{\\"type\\": \\"ProvidedStore\\"}"
          } ]
        }
        """.formatted(wantedPort, dir.resolve("store").toString().replace("\\", "/")));
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
    attributes.put("context", Map.of("qpid.work_dir", dir.resolve("work").toString(),
        "qpid.amqp_port", Integer.toString(wantedPort)));
    l.startup(attributes);
    launcher = l;
    Broker<?> broker = system.get().getContainer(Broker.class);
    port = broker.getPorts().iterator().next().getBoundPort();
  }

  @Override
  public void close() {
    stop();
  }

}
