package dev.herald.channel.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.intake.IntakeFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Intake from a RabbitMQ queue (document 001): duplicates, poison messages, a crash before the ack,
 * back-pressure, the database away, a consumer lost and subscribed again.
 */
@org.junit.jupiter.api.extension.ExtendWith(QpidBroker.Shared.class)
class AmqpIntakeTest {
  static QpidBroker broker;
  static Connection admin;
  static com.rabbitmq.client.Channel ch;

  @TempDir Path dir;
  final List<AutoCloseable> toClose = new ArrayList<>();
  final Set<String> delivered = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void connect() throws Exception {
    broker = QpidBroker.shared();
    admin = broker.connect();
    ch = admin.createChannel();
  }

  @AfterAll
  static void disconnect() throws Exception {
    admin.close();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  String queue() throws Exception {
    String q = "intake-" + System.nanoTime();
    ch.queueDeclare(q, true, false, false, null);
    return q;
  }

  Herald.Builder herald(JdbcDataSource ds, String node) {
    return Herald.builder().dataSource(ds).nodeId(node).pollInterval(Duration.ofMillis(50))
        .define(NoticeDefinition.builder("merchant-callback").handler("record").build())
        .handler("record", ctx -> {
          delivered.add(ctx.payload());
          return DeliveryResult.delivered();
        });
  }

  JdbcDataSource database() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_DELAY=-1");
    return ds;
  }

  Herald idle(JdbcDataSource ds) {
    Herald h = herald(ds, "idle").build(); // built, not started: nothing is delivered
    toClose.add(h);
    return h;
  }

  AmqpIntake intake(Herald h, String queue, IntakeFormat format) throws Exception {
    return intake(AmqpIntake.builder(h).uri(broker.uri()).queue(queue).format(format).pause(Duration.ofMillis(50)));
  }

  AmqpIntake intake(AmqpIntake.Builder b) throws Exception {
    AmqpIntake i = b.build().start();
    toClose.add(i);
    return i;
  }

  static void publish(String queue, String messageId, String body) throws Exception {
    ch.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(messageId).deliveryMode(2).build(),
        body.getBytes(StandardCharsets.UTF_8));
  }

  static List<Notice> notices(Herald h) {
    return h.operations().query(NoticeQuery.all().definition("merchant-callback").page(0, 1000)).items();
  }

  @Test
  void aMessageDeliveredTwiceMakesOneNoticeByMessageIdOrEnvelopeKey() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AmqpIntake bodies = intake(h, q, IntakeFormat.payload("merchant-callback"));
    publish(q, "m-1", "{\"order\":1}");
    publish(q, "m-1", "{\"order\":1}");
    publish(q, "m-2", "{\"order\":2}");
    await().atMost(Duration.ofSeconds(10)).until(() -> bodies.taken() == 3);
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactlyInAnyOrder("m-1", "m-2");

    String q2 = queue();
    AmqpIntake envelopes = intake(h, q2, IntakeFormat.envelope());
    String envelope = """
        {"definition": "merchant-callback", "payload": {"order": 3}, "idempotencyKey": "order-3",
         "fireAt": "2030-01-01T00:00:00Z"}""";
    publish(q2, "x-1", envelope);
    publish(q2, "x-2", envelope); // another message id, the same key: a duplicate
    await().atMost(Duration.ofSeconds(10)).until(() -> envelopes.taken() == 2);
    List<Notice> all = notices(h);
    assertThat(all).hasSize(3);
    Notice third = all.stream().filter(n -> "order-3".equals(n.idempotencyKey())).findFirst().orElseThrow();
    assertThat(third.payload()).isEqualTo("{\"order\": 3}");
    assertThat(third.fireAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
  }

  @Test
  void aMessagesTraceparentHeaderIsKeptByItsNotice() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AmqpIntake intake = intake(h, q, IntakeFormat.payload("merchant-callback"));
    ch.basicPublish("", q, new AMQP.BasicProperties.Builder().messageId("t-1")
        .headers(java.util.Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).build(), "{\"order\":7}".getBytes(StandardCharsets.UTF_8));
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 1);
    assertThat(notices(h)).extracting(Notice::traceparent).containsExactly("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void poisonMessagesAreParkedWithTheReasonAndNeverBlockTheOnesBehind() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AmqpIntake intake = intake(h, q, IntakeFormat.envelope());
    publish(q, "p-1", "not json");
    publish(q, "p-2", "{\"payload\": {}}");
    publish(q, "p-3", "{\"definition\": \"no-such\", \"payload\": {}}");
    publish(q, "ok", "{\"definition\": \"merchant-callback\", \"payload\": {\"order\": 9}}");

    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 1 && intake.parked() == 3);
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactly("ok");
    List<String> reasons = new ArrayList<>();
    GetResponse m;
    while ((m = ch.basicGet(q + ".parked", true)) != null) {
      reasons.add(m.getProps().getMessageId() + ": " + m.getProps().getHeaders().get(AmqpIntake.HEADER_REASON));
    }
    assertThat(reasons).hasSize(3);
    assertThat(reasons.get(0)).startsWith("p-1: envelope: body: not valid JSON at offset 0");
    assertThat(reasons.get(1)).isEqualTo("p-2: envelope: 'definition' is required");
    assertThat(reasons.get(2)).startsWith("p-3: ").contains("no-such");
    assertThat(ch.messageCount(q)).isZero();
  }

  @Test
  void aCrashBetweenCommitAndAckGivesADuplicateTheKeyAbsorbs() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AtomicBoolean crashed = new AtomicBoolean();
    AmqpIntake first = intake(AmqpIntake.builder(h).uri(broker.uri()).queue(q)
        .format(IntakeFormat.payload("merchant-callback"))
        .afterCommit(n -> {
          crashed.set(true);
          throw new IllegalStateException("crash after the commit, before the ack");
        }));
    publish(q, "m-1", "{\"order\":1}");
    await().atMost(Duration.ofSeconds(10)).untilTrue(crashed);
    first.close(); // the broker gives the unacknowledged message to the next consumer

    AmqpIntake second = intake(h, q, IntakeFormat.payload("merchant-callback"));
    await().atMost(Duration.ofSeconds(10)).until(() -> second.taken() == 1);
    assertThat(notices(h)).hasSize(1).first().extracting(Notice::idempotencyKey).isEqualTo("m-1");
    assertThat(ch.messageCount(q)).isZero();
  }

  @Test
  void intakePausesWhileTheBacklogIsFullAndResumesByItself() throws Exception {
    JdbcDataSource ds = database();
    // a node that delivers nothing, so the backlog fills; intake runs on it
    Herald intakeNode = herald(ds, "intake").onlyDefinitions(Set.of("nothing")).maxBacklog(3).build().start();
    toClose.add(intakeNode);
    int filled = fillBacklog(intakeNode);
    String q = queue();
    AmqpIntake intake = intake(intakeNode, q, IntakeFormat.payload("merchant-callback"));
    for (int i = 0; i < 20; i++) {
      publish(q, "m-" + i, "{\"order\":" + i + "}");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.pauses() > 0);
    long takenWhilePaused = intake.taken();
    assertThat(takenWhilePaused).isLessThan(20);

    Herald worker = herald(ds, "worker").build().start(); // drains the backlog
    toClose.add(worker);
    await().atMost(Duration.ofSeconds(30)).until(() -> intake.taken() == 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 20 + filled);
    assertThat(notices(intakeNode)).hasSize(20 + filled).allSatisfy(n -> assertThat(n.status()).isEqualTo(NoticeStatus.SUCCEEDED));
  }

  @Test
  void aMessageWhoseEnqueueFailsForGoodIsParkedAndTheOnesBehindAreTaken() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AmqpIntake intake = intake(h, q, IntakeFormat.envelope());
    // parses as an instant, but no epoch millisecond holds it: enqueue fails for good
    publish(q, "far", "{\"definition\": \"merchant-callback\", \"payload\": 1, \"fireAt\": \"+300000000-01-01T00:00:00Z\"}");
    publish(q, "behind", "{\"definition\": \"merchant-callback\", \"payload\": {\"order\": 6}}");

    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 1 && intake.parked() == 1);
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactly("behind");
    GetResponse m = ch.basicGet(q + ".parked", true);
    assertThat(m.getProps().getMessageId()).isEqualTo("far");
    assertThat(m.getProps().getHeaders().get(AmqpIntake.HEADER_REASON)).asString().isNotBlank();
    assertThat(intake.isConsuming()).isTrue();
    assertThat(intake.consumerLosses()).isZero();
    assertThat(ch.messageCount(q)).isZero();
  }

  @Test
  void whileTheDatabaseIsAwayMessagesWaitAndAreNotParked() throws Exception {
    AtomicBoolean away = new AtomicBoolean();
    JdbcDataSource real = database();
    javax.sql.DataSource flaky = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
          if (method.getName().equals("getConnection") && away.get()) {
            // what HikariCP throws when no connection comes within its timeout
            throw new java.sql.SQLTransientConnectionException("herald - Connection is not available, request timed out");
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Herald h = Herald.builder().dataSource(flaky).nodeId("idle")
        .define(NoticeDefinition.builder("merchant-callback").handler("record").build())
        .handler("record", ctx -> DeliveryResult.delivered()).build();
    toClose.add(h);
    away.set(true);
    String q = queue();
    AmqpIntake intake = intake(h, q, IntakeFormat.payload("merchant-callback"));
    for (int i = 0; i < 3; i++) {
      publish(q, "m-" + i, "{\"order\":" + i + "}");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.pauses() > 2);
    assertThat(intake.parked() + intake.taken()).isZero();

    away.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 3);
    assertThat(intake.parked()).isZero();
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactlyInAnyOrder("m-0", "m-1", "m-2");
  }

  /**
   * The consumer's channel closed by the client (its exception handler, after a delivery threw)
   * and by the broker (a channel error), and its connection lost with the broker stopped: each time
   * the intake says so and subscribes again by itself.
   */
  @Test
  void theIntakeSubscribesAgainWheneverItsConsumerIsLost() throws Exception {
    Herald h = idle(database());
    String q = queue();
    AtomicBoolean crashOnce = new AtomicBoolean(true);
    AmqpIntake intake = intake(AmqpIntake.builder(h).uri(broker.uri()).queue(q)
        .format(IntakeFormat.payload("merchant-callback")).pause(Duration.ofMillis(50))
        .recoveryInterval(Duration.ofMillis(100))
        .afterCommit(n -> {
          if (crashOnce.getAndSet(false)) {
            throw new IllegalStateException("a delivery that throws: the client closes the channel");
          }
        }));
    publish(q, "m-1", "{\"order\":1}");
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 1); // redelivered on the new channel
    assertThat(intake.consumerLosses()).isEqualTo(1);
    assertThat(intake.isConsuming()).isTrue();

    com.rabbitmq.client.Channel consuming = intake.consumerChannel();
    assertThatThrownBy(() -> consuming.queueDeclarePassive("no-such-queue")).isInstanceOf(java.io.IOException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.consumerLosses() == 2 && intake.isConsuming());
    publish(q, "m-2", "{\"order\":2}");
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 2);

    broker.stop(); // the connection drops; subscribing fails until the broker is back
    await().atMost(Duration.ofSeconds(10)).until(() -> !intake.isConsuming());
    assertThat(intake.consumerLosses()).isEqualTo(3);
    broker.startAgain();
    admin = broker.connect();
    ch = admin.createChannel();
    await().atMost(Duration.ofSeconds(20)).until(intake::isConsuming);
    publish(q, "m-3", "{\"order\":3}");
    await().atMost(Duration.ofSeconds(10)).until(() -> intake.taken() == 3);
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactlyInAnyOrder("m-1", "m-2", "m-3");
  }

  /**
   * Enqueues due notices on a node that delivers none until it refuses: from then on its backlog is
   * full, whenever the intake starts (the node counts its backlog at its own pace).
   */
  private static int fillBacklog(Herald node) {
    java.util.concurrent.atomic.AtomicInteger filled = new java.util.concurrent.atomic.AtomicInteger();
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> {
      try {
        node.enqueue("merchant-callback", "{\"prefill\":" + filled.incrementAndGet() + "}");
        return false;
      } catch (dev.herald.BackPressureException e) {
        filled.decrementAndGet();
        return true;
      }
    });
    return filled.get();
  }
}
