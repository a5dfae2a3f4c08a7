package dev.herald.channel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every outcome of the Kafka channel, against a KRaft broker of Kafka's test kit in this JVM. */
@org.junit.jupiter.api.extension.ExtendWith(TestKafka.class)
class KafkaChannelTest {
  static KafkaClusterTestKit cluster;

  @TempDir Path dir;
  final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startKafka() throws Exception {
    cluster = TestKafka.shared();
    try (Admin admin = cluster.admin()) {
      admin.createTopics(List.of(
          new NewTopic("orders.paid", 1, (short) 1),
          new NewTopic("orders.refunded", 1, (short) 1),
          new NewTopic("orders.small", 1, (short) 1).configs(Map.of("max.message.bytes", "1000")))).all().get();
    }
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  ManualRunner herald(KafkaChannel kafka, NoticeDefinition definition) {
    SettableClock clock = SettableClock.startingNow();
    Herald h = Herald.builder().h2File(dir.resolve("h" + toClose.size())).clock(clock).channel(kafka).define(definition).build();
    toClose.add(kafka);
    toClose.add(h);
    return new ManualRunner(h, clock);
  }

  Herald last() {
    return (Herald) toClose.getLast();
  }

  static KafkaChannel.Builder channel() {
    return KafkaChannel.builder().bootstrapServers(cluster.bootstrapServers());
  }

  static List<ConsumerRecord<String, String>> read(String topic, int count) {
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.shared().bootstrapServers(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.GROUP_ID_CONFIG, "test-" + System.nanoTime()), new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(Set.of(topic));
      List<ConsumerRecord<String, String>> out = new ArrayList<>();
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (out.size() < count && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      return out;
    }
  }

  static String header(ConsumerRecord<?, ?> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void anAckedRecordIsDeliveredKeyedByTheNoticeIdWithHeaders() {
    ManualRunner runner = herald(channel().build(), NoticeDefinition.builder("order-paid").channel("kafka", "orders.paid").build());
    String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Notice n = last().enqueue(NoticeRequest.of("order-paid", "{\"order\":{\"id\":42}}").traceparent(tp));
    runner.runDue();

    NoticeDetail d = last().operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(d.attempts().getFirst().detail()).startsWith("Kafka orders.paid-0@");
    ConsumerRecord<String, String> r = read("orders.paid", 1).getFirst();
    assertThat(r.key()).isEqualTo(n.id().toString());
    assertThat(r.value()).isEqualTo("{\"order\":{\"id\":42}}");
    assertThat(header(r, "x-herald-id")).isEqualTo(n.id().toString());
    assertThat(header(r, "x-herald-definition")).isEqualTo("order-paid");
    assertThat(header(r, "x-herald-attempt")).isEqualTo("1");
    assertThat(header(r, "traceparent")).isEqualTo(tp);
  }

  /** The broker's health is timed by the channel's clock, as every other time the channel keeps. */
  @Test
  void theBrokersHealthIsTimedByTheChannelsClock() {
    java.time.Instant at = java.time.Instant.parse("2031-05-06T07:08:09Z");
    KafkaChannel kafka = channel().clock(java.time.Clock.fixed(at, java.time.ZoneOffset.UTC)).build();
    ManualRunner runner = herald(kafka, NoticeDefinition.builder("order-paid").channel("kafka", "orders.paid").build());
    last().enqueue("order-paid", "{\"order\":1}");
    runner.runDue();

    dev.herald.spi.PeerStatus broker = kafka.peers().getFirst();
    assertThat(broker.state()).isEqualTo(dev.herald.spi.PeerStatus.State.UP);
    assertThat(broker.lastSuccessAt()).isEqualTo(at);
  }

  @Test
  void theKeyComesFromThePayloadAndANoticesTargetOverridesTheTopic() {
    ManualRunner runner = herald(channel().build(), NoticeDefinition.builder("order-paid").channel("kafka", "orders.paid")
        .option("key-path", "order.id").build());
    last().enqueue(NoticeRequest.of("order-paid", "{\"order\":{\"id\":7}}").target("orders.refunded"));
    Notice noKey = last().enqueue("order-paid", "{\"order\":{}}");
    runner.runDue();

    ConsumerRecord<String, String> r = read("orders.refunded", 1).getFirst();
    assertThat(r.key()).isEqualTo("7");
    NoticeDetail d = last().operations().find(noKey.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(d.notice().lastError()).contains("payload value 'order.id' has no value");
  }

  @Test
  void aRecordTooLargeFailsForGood() {
    ManualRunner runner = herald(channel().build(), NoticeDefinition.builder("big").channel("kafka", "orders.small").build());
    Notice n = last().enqueue("big", "{\"blob\":\"" + "x".repeat(5_000) + "\"}");
    runner.runDue();

    NoticeDetail d = last().operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(d.notice().lastError()).contains("for good").contains("RecordTooLargeException");
  }

  @Test
  void aTopicThatDoesNotExistYetIsRetried() {
    ManualRunner runner = herald(channel().maxBlock(Duration.ofMillis(500)).build(),
        NoticeDefinition.builder("later").channel("kafka", "orders.not-yet").build());
    Notice n = last().enqueue("later", "{}");
    runner.runDue();

    NoticeDetail d = last().operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().lastError()).contains("not present in metadata");
  }

  @Test
  void aDefinitionIsRefusedNamingTheBadField() {
    KafkaChannel kafka = channel().build();
    toClose.add(kafka);
    assertThatThrownBy(() -> kafka.validate(NoticeDefinition.builder("x").channel("kafka", "bad topic").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    assertThatThrownBy(() -> kafka.validate(NoticeDefinition.builder("x").channel("kafka", "t").option("key-path", "a..b").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.key-path"));
    assertThatThrownBy(() -> KafkaChannel.builder().build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("bootstrapServers"));
    assertThatThrownBy(() -> channel().property("acks", "1").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("properties.acks"));
  }
}
