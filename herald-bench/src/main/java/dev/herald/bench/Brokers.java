package dev.herald.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import dev.herald.NoticeDefinition;
import dev.herald.channel.amqp.AmqpChannel;
import dev.herald.channel.kafka.KafkaChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.SystemConfig;

/**
 * Case 7: brokers. Herald burns down {@code --n} due notices through {@code herald-channel-amqp}
 * (publisher confirms, persistent, mandatory) and {@code herald-channel-kafka} (idempotent,
 * acks=all), beside the roof: a plain producer sending as many messages to the same in-JVM broker
 * (Qpid Broker-J for AMQP 0-9-1, Kafka's KRaft test kit) with the same guarantees, as fast as the
 * client allows (a window of {@code --threads} x 32 unconfirmed). Herald's number includes its
 * database work (claim, outcome, archive), the producer's does not: the ratio is what Herald's
 * bookkeeping costs on top of the broker.
 */
final class Brokers {
  static final String CASE = "brokers";

  private Brokers() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    try (Qpid qpid = Qpid.start(); Kafka kafka = Kafka.start()) {
      for (int r = 0; r < o.repeat; r++) {
        ctx.add(plainAmqp(o, qpid), db);
        try (BenchDb.Space space = db.open(CASE + "-amqp")) {
          AmqpChannel amqp = AmqpChannel.builder().broker("bench", qpid.uri()).build();
          ctx.add(BurnDown.herald(ctx, db, space, o.n, CASE, "amqp", new Systems.Setup(
              NoticeDefinition.builder(Rows.DEFINITION).channel(AmqpChannel.NAME, "/bench").build(), amqp,
              "herald-channel-amqp to Qpid Broker-J (confirms, persistent, mandatory)")), db);
        }
        ctx.add(plainKafka(o, kafka), db);
        try (BenchDb.Space space = db.open(CASE + "-kafka")) {
          KafkaChannel k = KafkaChannel.builder().bootstrapServers(kafka.servers()).build();
          ctx.add(BurnDown.herald(ctx, db, space, o.n, CASE, "kafka", new Systems.Setup(
              NoticeDefinition.builder(Rows.DEFINITION).channel(KafkaChannel.NAME, "bench").build(), k,
              "herald-channel-kafka to a KRaft broker (idempotent, acks=all)")), db);
        }
      }
    } catch (Exception e) {
      throw new BenchException("brokers: " + e, e);
    }
  }

  private static byte[] body(long i) {
    return ("{\"order\":" + i + ",\"note\":\"a notice of about the size of a small JSON payload\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static Result plainAmqp(Options o, Qpid qpid) throws Exception {
    int n = o.n;
    Result.Builder rb = Result.of(CASE, "plain-producer", "amqp", "-").setting("n", n)
        .setting("delivery", "amqp-client, confirms, persistent, mandatory, one channel");
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(qpid.uri());
    try (Connection c = f.newConnection("bench-roof"); Channel ch = c.createChannel()) {
      ch.queuePurge("bench");
      ch.confirmSelect();
      Semaphore window = new Semaphore(o.threads * 32);
      AtomicLong confirmed = new AtomicLong();
      ch.addConfirmListener((tag, multiple) -> release(ch, window, confirmed, tag, multiple),
          (tag, multiple) -> release(ch, window, confirmed, tag, multiple));
      long t0 = System.nanoTime();
      for (long i = 0; i < n; i++) {
        window.acquire();
        ch.basicPublish("", "bench", true, MessageProperties.PERSISTENT_BASIC, body(i));
      }
      ch.waitForConfirmsOrDie(60_000);
      double seconds = (System.nanoTime() - t0) / 1e9;
      rb.metric("delivered", n).metric("seconds", seconds).metric("deliveries_per_s", n / seconds);
      ch.queuePurge("bench");
    }
    return rb.build();
  }

  private static final Map<Channel, Long> lastTag = new java.util.concurrent.ConcurrentHashMap<>();

  private static void release(Channel ch, Semaphore window, AtomicLong confirmed, long tag, boolean multiple) {
    long prev = lastTag.getOrDefault(ch, 0L);
    int count = multiple ? (int) (tag - prev) : 1;
    lastTag.put(ch, Math.max(prev, tag));
    confirmed.addAndGet(count);
    window.release(count);
  }

  private static Result plainKafka(Options o, Kafka kafka) throws Exception {
    int n = o.n;
    Result.Builder rb = Result.of(CASE, "plain-producer", "kafka", "-").setting("n", n)
        .setting("delivery", "kafka-clients, idempotent, acks=all, linger.ms=5");
    Map<String, Object> cfg = new HashMap<>();
    cfg.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.servers());
    cfg.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    cfg.put(ProducerConfig.ACKS_CONFIG, "all");
    cfg.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(cfg, new StringSerializer(), new ByteArraySerializer())) {
      AtomicReference<Exception> failed = new AtomicReference<>();
      long t0 = System.nanoTime();
      for (long i = 0; i < n; i++) {
        p.send(new ProducerRecord<>("bench", Long.toString(i), body(i)), (m, e) -> {
          if (e != null) {
            failed.set(e);
          }
        });
      }
      p.flush();
      double seconds = (System.nanoTime() - t0) / 1e9;
      rb.metric("delivered", n).metric("seconds", seconds).metric("deliveries_per_s", n / seconds);
      if (failed.get() != null) {
        rb.failed(failed.get().toString());
      }
    }
    return rb.build();
  }

  /** Qpid Broker-J on a random loopback port, in-memory store, queue {@code bench} declared. */
  record Qpid(SystemLauncher launcher, int port, Path dir) implements AutoCloseable {
    static Qpid start() throws Exception {
      Path dir = Files.createTempDirectory("herald-bench-qpid");
      Path config = dir.resolve("config.json");
      Files.writeString(config, """
          {"name": "bench", "modelVersion": "9.0",
           "authenticationproviders": [{"name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
             "users": [{"name": "guest", "type": "managed", "password": "guest"}]}],
           "ports": [{"name": "AMQP", "port": "0", "bindingAddress": "127.0.0.1", "protocols": ["AMQP_0_9_1"],
             "authenticationProvider": "plain",
             "virtualhostaliases": [{"name": "defaultAlias", "type": "defaultAlias"}]}],
           "virtualhostnodes": [{"name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
             "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"}]}
          """);
      AtomicReference<SystemConfig<?>> system = new AtomicReference<>();
      SystemLauncher l = new SystemLauncher(new SystemLauncherListener.DefaultSystemLauncherListener() {
        @Override
        public void onContainerResolve(SystemConfig<?> s) {
          system.set(s);
        }
      });
      l.startup(Map.of("type", "Memory", "initialConfigurationLocation", config.toUri().toURL().toExternalForm(),
          "startupLoggedToSystemOut", false, "context", Map.of("qpid.work_dir", dir.resolve("work").toString())));
      Broker<?> broker = system.get().getContainer(Broker.class);
      int port = broker.getPorts().iterator().next().getBoundPort();
      Qpid q = new Qpid(l, port, dir);
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(q.uri());
      try (Connection c = f.newConnection(); Channel ch = c.createChannel()) {
        ch.queueDeclare("bench", true, false, false, null);
      }
      return q;
    }

    String uri() {
      return "amqp://guest:guest@127.0.0.1:" + port;
    }

    @Override
    public void close() {
      launcher.shutdown();
    }
  }

  /** One KRaft broker of Kafka's test kit, topic {@code bench} (one partition). */
  record Kafka(KafkaClusterTestKit cluster) implements AutoCloseable {
    static Kafka start() throws Exception {
      KafkaClusterTestKit c = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
          .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
          .setConfigProp("offsets.topic.replication.factor", "1")
          .setConfigProp("transaction.state.log.replication.factor", "1")
          .setConfigProp("transaction.state.log.min.isr", "1")
          .build();
      c.format();
      c.startup();
      c.waitForReadyBrokers();
      try (Admin admin = c.admin()) {
        admin.createTopics(List.of(new NewTopic("bench", 1, (short) 1))).all().get();
      }
      return new Kafka(c);
    }

    String servers() {
      return cluster.bootstrapServers();
    }

    @Override
    public void close() throws Exception {
      cluster.close();
    }
  }
}
