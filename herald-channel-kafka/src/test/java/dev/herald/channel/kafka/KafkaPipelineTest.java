package dev.herald.channel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends are pipelined through the producer's batching: a running engine with more delivery slots
 * than the channel's bound hands it notice after notice; many records are in flight at once (never
 * more than the bound: the rest are deferred and come back), the producer puts many in one request,
 * and every notice is delivered once.
 */
@ExtendWith(TestKafka.class)
class KafkaPipelineTest {
  static final int NOTICES = 1_000;
  static final int BOUND = 64;

  @TempDir Path dir;

  @Test
  void noticesArePipelinedWithAtMostTheBoundInFlight() throws Exception {
    try (Admin admin = TestKafka.shared().admin()) {
      admin.createTopics(List.of(new NewTopic("pipelined", 1, (short) 1))).all().get();
    }
    Set<String> succeeded = ConcurrentHashMap.newKeySet();
    KafkaChannel kafka = KafkaChannel.builder().bootstrapServers(TestKafka.shared().bootstrapServers())
        .maxInFlight(BOUND).busyDelay(Duration.ofMillis(20)).build();
    AtomicInteger most = new AtomicInteger();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread watcher = Thread.ofPlatform().daemon().start(() -> {
      while (watching.get()) {
        most.accumulateAndGet(kafka.inFlight(), Math::max);
        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
      }
    });
    try (kafka; Herald h = Herald.builder().h2File(dir.resolve("h")).channel(kafka).maxConcurrentDeliveries(4 * BOUND)
        .maxConcurrentPerReceiver(4 * BOUND)
        .listener(new HeraldListener() {
          @Override
          public void onFinished(Notice n) {
            if (n.status() == NoticeStatus.SUCCEEDED) {
              succeeded.add(n.id().toString());
            }
          }
        })
        .define(NoticeDefinition.builder("pipelined").channel("kafka", "pipelined").retry("1s").build())
        .build()) {
      List<Notice> notices = h.enqueueAll(IntStream.range(0, NOTICES)
          .mapToObj(i -> NoticeRequest.of("pipelined", "{\"n\":" + i + "}")).toList());
      h.start();

      await().atMost(Duration.ofSeconds(60)).until(() -> succeeded.size() == NOTICES);
      watching.set(false);
      watcher.join();

      assertThat(most.get()).as("records in flight at once").isBetween(BOUND / 2, BOUND);
      assertThat(kafka.producerMetric("records-per-request-avg")).as("records per produce request").isGreaterThan(2);
      assertThat(succeeded).containsExactlyInAnyOrderElementsOf(notices.stream().map(n -> n.id().toString()).toList());
      Map<String, Integer> times = new HashMap<>();
      for (ConsumerRecord<String, String> r : KafkaChannelTest.read("pipelined", NOTICES)) {
        times.merge(KafkaChannelTest.header(r, KafkaChannel.HEADER_ID), 1, Integer::sum);
      }
      assertThat(times).hasSize(NOTICES).allSatisfy((id, n) -> assertThat(n).as("record of %s", id).isEqualTo(1));
    } finally {
      watching.set(false);
    }
  }
}
