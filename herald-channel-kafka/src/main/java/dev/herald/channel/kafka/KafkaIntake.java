package dev.herald.channel.kafka;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.Traceparent;
import dev.herald.intake.BrokerIntake;
import dev.herald.intake.IntakeFormat;
import dev.herald.intake.Refusals;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
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
 * that can never become a notice (malformed, or refused for good by Herald: an unknown definition,
 * a fire time out of range, any failure that is not {@link Refusals#forNow for now}) goes to the
 * parking topic with header {@code x-herald-reason}, and the records behind it are taken. While
 * Herald refuses for back-pressure ({@code maxBacklog}) or its database is away, the consumer seeks
 * back to the first record not taken, pauses its partitions (staying in the group; partitions a
 * rebalance assigns meanwhile are paused too) and resumes by itself.
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
public final class KafkaIntake extends BrokerIntake {
  /** Header of a parked record: why it is not a notice. */
  public static final String HEADER_REASON = "x-herald-reason";
  /** Header a producer may set to give a record an id (the idempotency key when the envelope has none). */
  public static final String HEADER_MESSAGE_ID = "message-id";

  private static final Logger log = LoggerFactory.getLogger(KafkaIntake.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

  private final Herald herald;
  private final String topic;
  private final String parkingTopic;
  private final IntakeFormat format;
  private final Duration pause;
  private final Map<String, Object> consumerConfig;
  private final Map<String, Object> producerConfig;
  private final Consumer<Notice> afterCommit;
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
      Waiting waiting = new Waiting(c);
      c.subscribe(List.of(topic), waiting);
      while (running) {
        waiting.resumeIfDue();
        ConsumerRecords<byte[], byte[]> records = c.poll(waiting.active ? waiting.remaining() : POLL_TIMEOUT);
        if (waiting.active) {
          rewind(c, records); // a rebalance handed out partitions mid-pause: read them again later
          continue;
        }
        if (!takeAll(c, records, parking)) {
          waiting.start();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      // a crash of the intake: uncommitted records are delivered again to the next consumer
      log.error("intake from topic '{}' stopped: {}", topic, e.toString(), e);
      running = false;
    }
  }

  /**
   * Takes the records in, in order per partition, and commits the offsets of those taken (or
   * parked). False if Herald refused one for now: that partition and every partition not yet
   * started are sought back to their first record not taken, so nothing this poll returned is lost.
   */
  private boolean takeAll(KafkaConsumer<byte[], byte[]> c, ConsumerRecords<byte[], byte[]> records,
      KafkaProducer<byte[], byte[]> parking) {
    Map<TopicPartition, OffsetAndMetadata> done = new LinkedHashMap<>();
    boolean refused = false;
    for (TopicPartition tp : records.partitions()) {
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
        if (refused || !take(r, parking)) {
          refused = true;
          c.seek(tp, r.offset());
          break;
        }
        done.put(tp, new OffsetAndMetadata(r.offset() + 1));
      }
    }
    commit(c, done);
    return !refused;
  }

  /** Seeks every partition of {@code records} back to its first record: none of them was taken. */
  private static void rewind(KafkaConsumer<byte[], byte[]> c, ConsumerRecords<byte[], byte[]> records) {
    for (TopicPartition tp : records.partitions()) {
      c.seek(tp, records.records(tp).getFirst().offset());
    }
  }

  /** Commits after the notices are: a crash before this only repeats them, and their keys absorb that. */
  private void commit(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, OffsetAndMetadata> done) {
    if (done.isEmpty()) {
      return;
    }
    try {
      c.commitSync(done);
    } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
      // the partitions may be someone else's now: whoever reads them next takes these records again
      log.warn("intake from topic '{}' could not commit offsets {} ({}); those records are taken again, "
          + "their idempotency keys absorb the repeats", topic, done, e.toString());
    }
  }

  /**
   * The pause while Herald refuses for now. Every partition held is paused, and so is every
   * partition a rebalance assigns meanwhile (it would otherwise be fetched from its committed offset
   * while the intake cannot take anything); the pause ends {@code pause} after it began.
   */
  private final class Waiting implements ConsumerRebalanceListener {
    private final KafkaConsumer<byte[], byte[]> c;
    boolean active;
    private long resumeAtNanos;

    Waiting(KafkaConsumer<byte[], byte[]> c) {
      this.c = c;
    }

    void start() {
      c.pause(c.assignment());
      active = true;
      resumeAtNanos = System.nanoTime() + pause.toNanos();
    }

    Duration remaining() {
      return Duration.ofNanos(Math.max(0, resumeAtNanos - System.nanoTime()));
    }

    void resumeIfDue() {
      if (active && resumeAtNanos - System.nanoTime() <= 0) {
        active = false;
        c.resume(c.paused());
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (active) {
        c.pause(partitions);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      // nothing to commit: every batch's offsets are committed before the next poll
    }
  }

  /**
   * Takes one record in: true if it became a notice or was parked; false if Herald refused for now
   * (back-pressure, database away) or the parking topic could not take it, so it is read again.
   */
  private boolean take(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> parking) {
    Notice notice;
    try {
      notice = herald.enqueue(withTrace(format.decode(r.value() == null ? new byte[0] : r.value(), messageId(r)), r));
    } catch (RuntimeException e) {
      if (Refusals.forNow(e)) {
        if (countPause()) {
          log.info("intake from topic '{}' paused: {}", topic, e.getMessage());
        }
        return false;
      }
      return park(r, parking, e); // malformed, unknown definition, out of range...: never blocks the rest
    }
    afterCommit.accept(notice);
    countTaken();
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

  /** Sends the record to the parking topic; false if that failed (it is taken again after a pause). */
  private boolean park(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> parking, RuntimeException why) {
    String reason = Refusals.reason(why);
    String origin = r.topic() + "-" + r.partition() + "@" + r.offset();
    ProducerRecord<byte[], byte[]> p = new ProducerRecord<>(parkingTopic, null, r.key(), r.value(), r.headers());
    p.headers().add(HEADER_REASON, reason.getBytes(StandardCharsets.UTF_8));
    p.headers().add("x-herald-origin", origin.getBytes(StandardCharsets.UTF_8));
    try {
      parking.send(p).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      log.warn("intake from topic '{}' cannot park record {} in '{}' ({}); holding it and trying again", topic, origin,
          parkingTopic, e.toString());
      return false;
    }
    countParked();
    if (why instanceof HeraldException) {
      log.warn("parked record {} of topic '{}' in '{}': {}", origin, topic, parkingTopic, reason);
    } else { // not a refusal Herald explains: the stack trace tells where it came from
      log.warn("parked record {} of topic '{}' in '{}': {}", origin, topic, parkingTopic, reason, why);
    }
    return true;
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
