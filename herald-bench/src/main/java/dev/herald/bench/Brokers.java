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
 * acks=all), beside the roof: a plain producer sending as many messages to the same broker (Qpid
 * Broker-J in this JVM or a RabbitMQ started here for AMQP 0-9-1, Kafka's KRaft test kit) with the
 * same guarantees, as fast as the client allows (a window of {@code --broker-slots} unconfirmed),
 * and Herald's local burn-down (an in-process handler) of as many notices in the same run. On shared
 * CPUs a channel cannot beat the bound {@code 1 / (1/local + 1/roof)}: both costs are paid on the
 * same cores. Every row has the CPU it cost per message (this JVM, the database, a RabbitMQ).
 */
final class Brokers {
  static final String CASE = "brokers";

  private Brokers() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    try (AmqpBroker amqp = o.amqpBroker.equals("rabbitmq") ? RabbitMq.start() : Qpid.start();
        Kafka kafka = Kafka.start()) {
      int warm = Math.min(o.jitWarmup, o.n);
      if (warm > 0) { // compiles every path before anything is measured; not recorded
        System.out.printf("  warm-up, not recorded: %,d of each%n", warm);
        Bench.Ctx quiet = ctx.quiet();
        try (Progress.Quiet q = Progress.quiet()) {
          for (Result r : round(quiet, db, amqp, kafka, warm)) {
            System.out.printf("    (warm-up %s %s: %s)%n", r.system(), r.variant(), Bench.headline(r));
          }
        }
      }
      for (int r = 0; r < o.repeat; r++) {
        for (Result result : round(ctx, db, amqp, kafka, o.n)) {
          ctx.add(result, db);
        }
      }
    } catch (BenchException e) {
      throw e;
    } catch (Exception e) {
      throw new BenchException("brokers: " + e, e);
    }
  }

  /** One of each: Herald local, the AMQP roof and Herald through AMQP, the Kafka roof and Herald through Kafka. */
  private static List<Result> round(Bench.Ctx ctx, BenchDb db, AmqpBroker amqpBroker, Kafka kafka, int n)
      throws Exception {
    Options o = ctx.o();
    Bench.Ctx slotted = new Bench.Ctx(o.withSlots(o.brokerSlots), ctx.sink());
    List<Result> out = new java.util.ArrayList<>();
    try (BenchDb.Space space = db.open(CASE + "-local")) { // the same engine settings as the channels'
      out.add(BurnDown.herald(slotted, db, space, n, CASE, "local"));
    }
    out.add(plainAmqp(o, amqpBroker, n, db.kind()));
    try (BenchDb.Space space = db.open(CASE + "-amqp")) {
      // the channel's bound per exchange and per broker at the engine's slots: nothing deferred
      AmqpChannel amqp = AmqpChannel.builder().broker("bench", amqpBroker.uri())
          .maxInFlightPerBroker(o.brokerSlots).maxInFlightPerExchange(o.brokerSlots).build();
      out.add(withBrokerCpu(amqpBroker, () -> BurnDown.herald(slotted, db, space, n, CASE, "amqp", new Systems.Setup(
          NoticeDefinition.builder(Rows.DEFINITION).channel(AmqpChannel.NAME, "/bench").build(), amqp,
          "herald-channel-amqp to " + amqpBroker.describe() + " (confirms, persistent, mandatory), "
              + o.brokerSlots + " in flight"))));
    }
    out.add(plainKafka(o, kafka, n, db.kind()));
    try (BenchDb.Space space = db.open(CASE + "-kafka")) {
      KafkaChannel.Builder kb = KafkaChannel.builder().bootstrapServers(kafka.servers());
      if (o.kafkaLingerMs >= 0) {
        kb.property(ProducerConfig.LINGER_MS_CONFIG, o.kafkaLingerMs);
      }
      KafkaChannel k = kb.build();
      out.add(BurnDown.herald(slotted, db, space, n, CASE, "kafka", new Systems.Setup(
          NoticeDefinition.builder(Rows.DEFINITION).channel(KafkaChannel.NAME, "bench").build(), k,
          "herald-channel-kafka to a KRaft broker (idempotent, acks=all, linger.ms " + lingerMs(o) + ", batch.size 64 KiB), "
              + o.brokerSlots + " engine slots")));
    }
    return out;
  }

  private static byte[] body(long i) {
    return ("{\"order\":" + i + ",\"note\":\"a notice of about the size of a small JSON payload\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A Herald burn-down with the CPU a RabbitMQ outside this JVM spent per delivery added to its line. */
  private static Result withBrokerCpu(AmqpBroker broker, java.util.function.Supplier<Result> run) {
    Map<String, Long> before = broker.cpu();
    Result r = run.get();
    Map<String, Long> after = broker.cpu();
    double delivered = r.metric("delivered");
    if (before.containsKey("db_cpu_ms") && after.containsKey("db_cpu_ms") && delivered > 0) {
      r.metrics().put("broker_cpu_us_per_delivery", (after.get("db_cpu_ms") - before.get("db_cpu_ms")) * 1000.0 / delivered);
    }
    return r;
  }

  private static Result plainAmqp(Options o, AmqpBroker broker, int n, String dbKind) throws Exception {
    int window = o.brokerSlots;
    Result.Builder rb = Result.of(CASE, "plain-producer", "amqp", dbKind).setting("n", n).setting("window", window)
        .setting("delivery", "amqp-client to " + broker.describe() + ", confirms, persistent, mandatory, one channel, "
            + window + " unconfirmed");
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(broker.uri());
    try (Connection c = f.newConnection("bench-roof"); Channel ch = c.createChannel()) {
      ch.queuePurge("bench");
      ch.confirmSelect();
      Semaphore permits = new Semaphore(window);
      Confirms confirms = new Confirms(permits);
      ch.addConfirmListener(confirms::confirmed, confirms::confirmed);
      Map<String, Long> before = broker.cpu();
      long t0 = System.nanoTime();
      for (long i = 0; i < n; i++) {
        permits.acquire();
        ch.basicPublish("", "bench", true, MessageProperties.PERSISTENT_BASIC, body(i));
      }
      ch.waitForConfirmsOrDie(60_000);
      double seconds = (System.nanoTime() - t0) / 1e9;
      perMessage(rb, before, broker.cpu(), n);
      rb.metric("delivered", n).metric("seconds", seconds).metric("deliveries_per_s", n / seconds);
      ch.queuePurge("bench");
    }
    return rb.build();
  }

  /** Gives back the window's room as confirms come, one or several at once. */
  private static final class Confirms {
    private final Semaphore permits;
    private long highest;

    Confirms(Semaphore permits) {
      this.permits = permits;
    }

    synchronized void confirmed(long tag, boolean multiple) {
      int count = multiple ? (int) (tag - highest) : 1;
      highest = Math.max(highest, tag);
      permits.release(Math.max(count, 0));
    }
  }

  /** CPU per message of this JVM and, when the broker is a process of its own, of the broker. */
  private static void perMessage(Result.Builder rb, Map<String, Long> before, Map<String, Long> after, long n) {
    Long brokerBefore = before.remove("db_cpu_ms");
    Long brokerAfter = after.remove("db_cpu_ms");
    BenchDb.perDelivery(rb, before, after, n);
    if (brokerBefore != null && brokerAfter != null) {
      rb.metric("broker_cpu_us_per_delivery", (brokerAfter - brokerBefore) * 1000.0 / n);
    }
  }

  private static Result plainKafka(Options o, Kafka kafka, int n, String dbKind) throws Exception {
    Result.Builder rb = Result.of(CASE, "plain-producer", "kafka", dbKind).setting("n", n)
        .setting("delivery", "kafka-clients, idempotent, acks=all, linger.ms " + lingerMs(o)
            + ", batch.size 64 KiB, as fast as send() takes them");
    Map<String, Object> cfg = new HashMap<>();
    cfg.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.servers());
    cfg.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    cfg.put(ProducerConfig.ACKS_CONFIG, "all");
    cfg.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs(o));
    cfg.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(cfg, new StringSerializer(), new ByteArraySerializer())) {
      AtomicReference<Exception> failed = new AtomicReference<>();
      Map<String, Long> before = BenchDb.cpu(null);
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
      perMessage(rb, before, BenchDb.cpu(null), n);
      rb.metric("delivered", n).metric("seconds", seconds).metric("deliveries_per_s", n / seconds);
      if (failed.get() != null) {
        rb.failed(failed.get().toString());
      }
    }
    return rb.build();
  }

  private static int lingerMs(Options o) {
    return o.kafkaLingerMs >= 0 ? o.kafkaLingerMs : 5;
  }

  /** The AMQP 0-9-1 broker of the case, with queue {@code bench} declared. */
  interface AmqpBroker extends AutoCloseable {
    String uri();

    String describe();

    /** This JVM's CPU and, as {@code db_cpu_ms}, the broker's when it is a process of its own. */
    Map<String, Long> cpu();
  }

  /** Qpid Broker-J on a random loopback port, in-memory store, queue {@code bench} declared. */
  record Qpid(SystemLauncher launcher, int port, Path dir) implements AmqpBroker {
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

    @Override
    public String uri() {
      return "amqp://guest:guest@127.0.0.1:" + port;
    }

    @Override
    public String describe() {
      return "Qpid Broker-J (in this JVM, memory store)";
    }

    @Override
    public Map<String, Long> cpu() {
      return BenchDb.cpu(null);
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
