package dev.herald.channel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Intake from a Kafka topic (document 001): duplicates, poison records, a crash before the offset commit, back-pressure. */
@org.junit.jupiter.api.extension.ExtendWith(TestKafka.class)
class KafkaIntakeTest {
  static KafkaClusterTestKit cluster;
  static KafkaProducer<String, String> producer;

  @TempDir Path dir;
  final List<AutoCloseable> toClose = new ArrayList<>();
  final Set<String> delivered = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestKafka.shared();
    producer = new KafkaProducer<>(Map.of("bootstrap.servers", cluster.bootstrapServers()),
        new StringSerializer(), new StringSerializer());
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  static String topic() throws Exception {
    return topic(1);
  }

  static String topic(int partitions) throws Exception {
    String t = "intake-" + System.nanoTime();
    try (Admin admin = cluster.admin()) {
      admin.createTopics(List.of(new NewTopic(t, partitions, (short) 1), new NewTopic(t + ".parked", 1, (short) 1)))
          .all().get();
    }
    return t;
  }

  static void send(String topic, String body, String messageId) throws Exception {
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, body);
    if (messageId != null) {
      r.headers().add(KafkaIntake.HEADER_MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(r).get();
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

  Herald idle() {
    Herald h = herald(database(), "idle").build(); // not started: nothing delivered
    toClose.add(h);
    return h;
  }

  KafkaIntake intake(KafkaIntake.Builder b) {
    KafkaIntake i = b.build().start();
    toClose.add(i);
    return i;
  }

  KafkaIntake.Builder intakeOf(Herald h, String topic, IntakeFormat format) {
    return KafkaIntake.builder(h).bootstrapServers(cluster.bootstrapServers()).topic(topic).groupId("herald-" + topic)
        .format(format).pause(Duration.ofMillis(50));
  }

  static List<Notice> notices(Herald h) {
    return h.operations().query(NoticeQuery.all().definition("merchant-callback").page(0, 1000)).items();
  }

  @Test
  void aRecordSentTwiceMakesOneNoticeByMessageIdOrEnvelopeKey() throws Exception {
    Herald h = idle();
    String t = topic();
    send(t, "{\"order\":1}", "m-1");
    send(t, "{\"order\":1}", "m-1");
    send(t, "{\"order\":2}", null); // no id: topic-partition@offset
    send(t, "{\"order\":3}", "m-3");
    KafkaIntake intake = intake(intakeOf(h, t, IntakeFormat.payload("merchant-callback")));
    await().atMost(Duration.ofSeconds(20)).until(() -> intake.taken() == 4);
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactlyInAnyOrder("m-1", t + "-0@2", "m-3");
  }

  @Test
  void aRecordsTraceparentHeaderIsKeptByItsNotice() throws Exception {
    Herald h = idle();
    String t = topic();
    ProducerRecord<String, String> r = new ProducerRecord<>(t, "{\"order\":7}");
    r.headers().add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes(StandardCharsets.UTF_8));
    producer.send(r).get();
    KafkaIntake intake = intake(intakeOf(h, t, IntakeFormat.payload("merchant-callback")));
    await().atMost(Duration.ofSeconds(20)).until(() -> intake.taken() == 1);
    assertThat(notices(h)).extracting(Notice::traceparent).containsExactly("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void poisonRecordsAreParkedWithTheReasonAndTheRestGoOn() throws Exception {
    Herald h = idle();
    String t = topic();
    send(t, "{\"definition\": \"merchant-callback\"}", "p-1");
    send(t, "{\"definition\": \"merchant-callback\", \"payload\": 1, \"fireAt\": \"tomorrow\"}", "p-2");
    send(t, "{\"definition\": \"merchant-callback\", \"payload\": {\"order\": 5}}", "ok");
    KafkaIntake intake = intake(intakeOf(h, t, IntakeFormat.envelope()));
    await().atMost(Duration.ofSeconds(20)).until(() -> intake.taken() == 1 && intake.parked() == 2);

    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactly("ok");
    List<ConsumerRecord<String, String>> parked = KafkaChannelTest.read(t + ".parked", 2);
    assertThat(parked).extracting(r -> KafkaChannelTest.header(r, KafkaIntake.HEADER_REASON)).containsExactly(
        "envelope: 'payload' is required (any JSON value)",
        "envelope: 'fireAt' must be an ISO-8601 instant such as 2026-01-01T10:00:00Z, was 'tomorrow'");
  }

  @Test
  void aCrashBetweenCommitAndOffsetCommitGivesADuplicateTheKeyAbsorbs() throws Exception {
    Herald h = idle();
    String t = topic();
    send(t, "{\"order\":1}", "m-1");
    AtomicBoolean crashed = new AtomicBoolean();
    KafkaIntake first = intake(intakeOf(h, t, IntakeFormat.payload("merchant-callback")).afterCommit(n -> {
      crashed.set(true);
      throw new IllegalStateException("crash after the notice's commit, before the offset's");
    }));
    await().atMost(Duration.ofSeconds(20)).untilTrue(crashed);
    await().atMost(Duration.ofSeconds(10)).until(() -> !first.isRunning());
    first.close();

    KafkaIntake second = intake(intakeOf(h, t, IntakeFormat.payload("merchant-callback")));
    await().atMost(Duration.ofSeconds(20)).until(() -> second.taken() == 1);
    assertThat(notices(h)).hasSize(1).first().extracting(Notice::idempotencyKey).isEqualTo("m-1");
  }

  @Test
  void intakePausesWhileTheBacklogIsFullAndResumesByItself() throws Exception {
    JdbcDataSource ds = database();
    Herald intakeNode = herald(ds, "intake").onlyDefinitions(Set.of("nothing")).maxBacklog(3).build().start();
    toClose.add(intakeNode);
    int filled = fillBacklog(intakeNode);
    String t = topic();
    for (int i = 0; i < 20; i++) {
      send(t, "{\"order\":" + i + "}", "m-" + i);
    }
    KafkaIntake intake = intake(intakeOf(intakeNode, t, IntakeFormat.payload("merchant-callback")));
    await().atMost(Duration.ofSeconds(20)).until(() -> intake.pauses() > 0);
    assertThat(intake.taken()).isLessThan(20);

    Herald worker = herald(ds, "worker").build().start();
    toClose.add(worker);
    await().atMost(Duration.ofSeconds(30)).until(() -> intake.taken() == 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 20 + filled);
    assertThat(notices(intakeNode)).hasSize(20 + filled).allSatisfy(n -> assertThat(n.status()).isEqualTo(NoticeStatus.SUCCEEDED));
  }

  @Test
  void aRecordWhoseEnqueueFailsForGoodIsParkedAndTheOnesBehindAreTaken() throws Exception {
    Herald h = idle();
    String t = topic();
    // parses as an instant, but no epoch millisecond holds it: enqueue fails for good
    send(t, "{\"definition\": \"merchant-callback\", \"payload\": 1, \"fireAt\": \"+300000000-01-01T00:00:00Z\"}", "far");
    send(t, "{\"definition\": \"merchant-callback\", \"payload\": {\"order\": 6}}", "behind");
    KafkaIntake intake = intake(intakeOf(h, t, IntakeFormat.envelope()));
    await().atMost(Duration.ofSeconds(20)).until(() -> intake.taken() == 1 && intake.parked() == 1);

    assertThat(intake.isRunning()).isTrue();
    assertThat(notices(h)).extracting(Notice::idempotencyKey).containsExactly("behind");
    ConsumerRecord<String, String> parked = KafkaChannelTest.read(t + ".parked", 1).getFirst();
    assertThat(KafkaChannelTest.header(parked, KafkaIntake.HEADER_MESSAGE_ID)).isEqualTo("far");
    assertThat(KafkaChannelTest.header(parked, KafkaIntake.HEADER_REASON)).isNotBlank();
    assertThat(KafkaChannelTest.header(parked, "x-herald-origin")).isEqualTo(t + "-0@0");
  }

  /**
   * A rebalance while intake waits out back-pressure: a second intake joins the group while the
   * first has its partitions paused, and the group hands partitions out afresh. Every record still
   * becomes exactly one notice once back-pressure lifts, whichever intake takes it.
   */
  @Test
  void aRebalanceWhileBackPressureHoldsLosesNoRecord() throws Exception {
    JdbcDataSource ds = database();
    Herald intakeNode = herald(ds, "intake").onlyDefinitions(Set.of("nothing")).maxBacklog(3).build().start();
    toClose.add(intakeNode);
    int filled = fillBacklog(intakeNode);
    String t = topic(4);
    String group = "group-" + t;
    for (int i = 0; i < 40; i++) {
      sendTo(t, i % 4, "m-" + i);
    }
    // a long pause, so the rebalance lands while the first intake has its partitions paused
    KafkaIntake.Builder b = intakeOf(intakeNode, t, IntakeFormat.payload("merchant-callback")).groupId(group)
        .pause(Duration.ofSeconds(2));
    KafkaIntake first = intake(b);
    await().atMost(Duration.ofSeconds(20)).until(() -> first.pauses() > 0);
    KafkaIntake second = intake(b);
    await().atMost(Duration.ofSeconds(30)).until(() -> assignments(group).equals(List.of(2, 2)) && second.pauses() > 0);
    for (int i = 40; i < 44; i++) {
      sendTo(t, i % 4, "m-" + i); // later records: their offsets are committed past anything skipped
    }
    assertThat(first.taken() + second.taken()).isZero();

    Herald worker = herald(ds, "worker").build().start(); // back-pressure lifts
    toClose.add(worker);
    List<String> all = java.util.stream.IntStream.range(0, 44).mapToObj(i -> "m-" + i).toList();
    await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> assertThat(notices(intakeNode).stream()
        .map(Notice::idempotencyKey).filter(java.util.Objects::nonNull)).containsExactlyInAnyOrderElementsOf(all));
    assertThat(first.taken() + second.taken()).isEqualTo(44);
    await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == 44 + filled);
    assertThat(first.isRunning() && second.isRunning()).isTrue();
  }

  static void sendTo(String topic, int partition, String messageId) throws Exception {
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, partition, null, "{\"id\":\"" + messageId + "\"}");
    r.headers().add(KafkaIntake.HEADER_MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
    producer.send(r).get();
  }

  /** How many partitions each member of the group holds, as the broker's coordinator sees it (sorted). */
  static List<Integer> assignments(String group) throws Exception {
    try (Admin admin = cluster.admin()) {
      return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().stream()
          .map(m -> m.assignment().topicPartitions().size()).sorted().toList();
    }
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
