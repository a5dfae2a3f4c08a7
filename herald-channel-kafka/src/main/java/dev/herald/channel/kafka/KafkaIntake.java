package dev.herald.channel.kafka;

import dev.herald.BackPressureException;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.Traceparent;
import dev.herald.StoreException;
import dev.herald.intake.IntakeFormat;
import dev.herald.intake.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes notices in from a Kafka topic (document 001). Each record becomes a notice (see {@link
 * IntakeFormat}; the message id is header {@code message-id} if the record has one, else {@code
 * topic-partition@offset}); offsets are committed only after the notices are, so a crash in between
 * delivers the records again and the idempotency key absorbs the repeats: never a loss. A record
 * that can never become a notice goes to the parking topic with header {@code x-herald-reason}.
 * While Herald refuses for back-pressure ({@code maxBacklog}) or its database is away, the consumer
 * pauses its partitions (staying in the group) and resumes by itself.
 *
 * <pre>{@code
 * KafkaIntake intake = KafkaIntake.builder(herald)
 *     .bootstrapServers("kafka-1:9092")
 *     .topic("payment-notices").groupId("herald")
 *     .format(IntakeFormat.envelope())
 *     .build()
 *     .start();
 * }</pre>
 */
public final class KafkaIntake implements AutoCloseable {
  /** Header of a parked record: why it is not a notice. */
  public static final String HEADER_REASON = "x-herald-reason";
  /** Header a producer may set to give a record an id (the idempotency key when the envelope has none). */
  public static final String HEADER_MESSAGE_ID = "message-id";

  private static final Logger log = LoggerFactory.getLogger(KafkaIntake.class);

  private final Herald herald;
  private final String topic;
  private final String parkingTopic;
  private final IntakeFormat format;
  private final Duration pause;
  private final Map<String, Object> consumerConfig;
  private final Map<String, Object> producerConfig;
  private final Consumer<Notice> afterCommit;
  private final AtomicLong taken = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong pauses = new AtomicLong();
  private volatile boolean running;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private Thread thread;

  private KafkaIntake(Builder b) {
    this.herald = b.herald;
    this.topic = b.topic;
    this.parkingTopic = b.parkingTopic != null ? b.parkingTopic : b.topic + ".parked";
    this.format = b.format;
    this.pause = b.pause;
    this.afterCommit = b.afterCommit;
    Map<String, Object> c = new HashMap<>(b.properties);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, b.groupId);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    this.consumerConfig = c;
    Map<String, Object> p = new HashMap<>(b.properties);
    p.keySet().removeIf(k -> k.startsWith("group.") || k.startsWith("auto.") || k.startsWith("isolation.")
        || k.startsWith("max.poll") || k.startsWith("enable.auto"));
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    this.producerConfig = p;
  }

  public static Builder builder(Herald herald) {
    return new Builder(herald);
  }

  /** Starts consuming on a thread of its own. */
  public synchronized KafkaIntake start() {
    if (running) {
      return this;
    }
    running = true;
    consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    thread = Thread.ofPlatform().name("herald-intake-" + topic).daemon().start(this::run);
    return this;
  }

  private void run() {
    try (KafkaConsumer<byte[], byte[]> c = consumer;
        KafkaProducer<byte[], byte[]> parking =
            new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
      c.subscribe(List.of(topic));
      while (running) {
        ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(200));
        Map<TopicPartition, OffsetAndMetadata> done = new LinkedHashMap<>();
        boolean paused = false;
        for (TopicPartition tp : records.partitions()) {
          for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
            if (paused || !take(r, parking)) {
              // refused for now: read this partition again from here after the pause
              paused = true;
              c.seek(tp, r.offset());
              break;
            }
            done.put(tp, new OffsetAndMetadata(r.offset() + 1));
          }
        }
        if (!done.isEmpty()) {
          c.commitSync(done); // after the notices are committed: a crash before this only repeats them
        }
        if (paused && running) {
          c.pause(c.assignment());
          c.poll(pause); // stays in the group while waiting
          c.resume(c.assignment());
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      // a crash of the intake: uncommitted records are delivered again to the next consumer
      log.error("intake from topic '{}' stopped: {}", topic, e.toString());
      running = false;
    }
  }

  /** Takes one record in; false if Herald refused for now (back-pressure, database away). */
  private boolean take(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> parking) {
    NoticeRequest request;
    try {
      request = withTrace(format.decode(r.value() == null ? new byte[0] : r.value(), messageId(r)), r);
    } catch (MalformedMessageException e) {
      park(r, parking, e.getMessage());
      return true;
    }
    Notice notice;
    try {
      notice = herald.enqueue(request);
    } catch (BackPressureException | StoreException e) {
      if (pauses.getAndIncrement() % 50 == 0) {
        log.info("intake from topic '{}' paused: {}", topic, e.getMessage());
      }
      return false;
    } catch (InvalidInputException e) { // unknown definition, payload too large...
      park(r, parking, e.getMessage());
      return true;
    }
    afterCommit.accept(notice);
    taken.incrementAndGet();
    return true;
  }

  /** The record's W3C traceparent header, if valid, so the notice continues the producer's trace. */
  private static NoticeRequest withTrace(NoticeRequest request, ConsumerRecord<byte[], byte[]> r) {
    Header h = r.headers().lastHeader(Traceparent.HEADER);
    String traceparent = h == null || h.value() == null ? null
        : Traceparent.orNull(new String(h.value(), StandardCharsets.UTF_8));
    return traceparent == null || request.traceparent() != null ? request : request.traceparent(traceparent);
  }

  private static String messageId(ConsumerRecord<byte[], byte[]> r) {
    Header h = r.headers().lastHeader(HEADER_MESSAGE_ID);
    return h != null && h.value() != null ? new String(h.value(), StandardCharsets.UTF_8)
        : r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  private void park(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> parking, String reason) {
    ProducerRecord<byte[], byte[]> p = new ProducerRecord<>(parkingTopic, null, r.key(), r.value(), r.headers());
    p.headers().add(HEADER_REASON, reason.getBytes(StandardCharsets.UTF_8));
    p.headers().add("x-herald-origin", (r.topic() + "-" + r.partition() + "@" + r.offset()).getBytes(StandardCharsets.UTF_8));
    try {
      parking.send(p).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while parking a record", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not park a record in '" + parkingTopic + "': " + e, e);
    }
    parked.incrementAndGet();
    log.warn("parked a record of topic '{}' in '{}': {}", topic, parkingTopic, reason);
  }

  /** Records that became notices (or matched an earlier one by key). */
  public long taken() {
    return taken.get();
  }

  /** Records sent to the parking topic. */
  public long parked() {
    return parked.get();
  }

  /** Refusals waited out (back-pressure or database away). */
  public long pauses() {
    return pauses.get();
  }

  /** Whether the intake is consuming (false once closed, or after a crash of its thread). */
  public boolean isRunning() {
    return running;
  }

  /** Stops consuming and waits for the thread; offsets of records taken in are committed. */
  @Override
  public synchronized void close() {
    running = false;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    if (thread != null) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Settings of a {@link KafkaIntake}: servers, topic, group id and format are required. */
  public static final class Builder {
    private final Herald herald;
    private String bootstrapServers;
    private String topic;
    private String parkingTopic;
    private String groupId;
    private IntakeFormat format;
    private Duration pause = Duration.ofMillis(200);
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private Consumer<Notice> afterCommit = n -> {};

    private Builder(Herald herald) {
      this.herald = Objects.requireNonNull(herald, "herald");
    }

    public Builder bootstrapServers(String servers) {
      this.bootstrapServers = servers;
      return this;
    }

    /** The topic to consume. */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** Where malformed records go; {@code <topic>.parked} by default (it must exist or be auto-created). */
    public Builder parkingTopic(String topic) {
      this.parkingTopic = topic;
      return this;
    }

    /** The consumer group: nodes with one group id share the partitions. */
    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    public Builder format(IntakeFormat format) {
      this.format = format;
      return this;
    }

    /** How long partitions stay paused when Herald refuses for now; 200ms by default. */
    public Builder pause(Duration pause) {
      this.pause = pause;
      return this;
    }

    /** Any other client setting (security.protocol, sasl.*...), for the consumer and the parking producer. */
    public Builder property(String key, Object value) {
      this.properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Runs after a notice is committed and before its offset is (tests crash here). */
    Builder afterCommit(Consumer<Notice> hook) {
      this.afterCommit = hook;
      return this;
    }

    /** @throws InvalidInputException naming the missing or bad setting */
    public KafkaIntake build() {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new InvalidInputException("bootstrapServers", "is required: host:port of at least one broker");
      }
      if (topic == null || topic.isBlank()) {
        throw new InvalidInputException("topic", "is required: the topic to take notices from");
      }
      if (groupId == null || groupId.isBlank()) {
        throw new InvalidInputException("groupId", "is required: the consumer group whose offsets record progress");
      }
      if (format == null) {
        throw new InvalidInputException("format", "is required: IntakeFormat.payload(definition) or IntakeFormat.envelope()");
      }
      if (pause == null || pause.isNegative() || pause.isZero()) {
        throw new InvalidInputException("pause", "must be positive, was " + pause);
      }
      return new KafkaIntake(this);
    }
  }
}
