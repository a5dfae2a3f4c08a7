package dev.herald.channel.kafka;

import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.Completions;
import dev.herald.json.JsonTree;
import dev.herald.spi.Channel;
import dev.herald.spi.ChannelBuilder;
import dev.herald.spi.Delivery;
import dev.herald.spi.PeerStatus;
import dev.herald.health.PeerHealth;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends notices to Kafka through an idempotent producer with {@code acks=all}: the broker's ack
 * (every in-sync replica has the record) makes the attempt {@code DELIVERED}; a retriable error
 * still failing after the producer's own retries makes it {@code RETRY}; an error no retry cures
 * (record too large, not authorized, invalid topic) makes it {@code FAIL}.
 *
 * <p>The target is the topic (a notice's own target overrides it). The record key is the notice id,
 * or, with option {@code key-path}, a value of the JSON payload such as {@code order.id} (records
 * with one key stay in order in one partition). The value is the JSON payload; headers {@code
 * x-herald-id}, {@code x-herald-definition} and {@code x-herald-attempt} say what it is.
 *
 * <pre>{@code
 * KafkaChannel kafka = KafkaChannel.builder()
 *     .bootstrapServers("kafka-1:9092,kafka-2:9092")
 *     .property("security.protocol", "SASL_SSL")
 *     .build();
 * Herald herald = Herald.builder()
 *     .channel(kafka)
 *     .define(NoticeDefinition.builder("order-paid")
 *         .channel("kafka", "orders.paid")
 *         .option("key-path", "order.id")
 *         .build())
 *     .build().start();
 * }</pre>
 *
 * <p>One channel is one cluster with one producer; a second cluster is a second channel with its own
 * name. Records are pipelined: {@code deliver} queues the record and returns, one task hands queued
 * records to the producer, which batches them ({@code linger.ms} 5, {@code batch.size} 64 KiB
 * unless set), and each send's callback settles its own notice. At most {@link
 * Builder#maxInFlight(int)} records are queued or await an ack; more are deferred.
 */
public final class KafkaChannel implements Channel {
  /** The default channel name, used by definitions as {@code .channel("kafka", "topic")}. */
  public static final String NAME = "kafka";
  public static final String HEADER_ID = "x-herald-id";
  public static final String HEADER_DEFINITION = "x-herald-definition";
  public static final String HEADER_ATTEMPT = "x-herald-attempt";
  /** The W3C trace context, when the notice has one (the header name tracing libraries read). */
  public static final String HEADER_TRACEPARENT = "traceparent";

  static final String OPTION_KEY_PATH = "key-path";
  /** Every option this channel reads. */
  static final java.util.List<dev.herald.spi.DefinitionOption> OPTIONS = java.util.List.of(
      dev.herald.spi.DefinitionOption.text(OPTION_KEY_PATH, "dotted path into the JSON payload whose value is the record key"));
  private static final int MAX_TOPIC_LENGTH = 249;
  private static final java.util.regex.Pattern TOPIC = java.util.regex.Pattern.compile("[A-Za-z0-9._-]+");
  /** How long a topic counts as known to the producer after its last ack (its metadata stays 5 min unused). */
  private static final long KNOWN_NANOS = 60_000_000_000L;

  /** A record on its way, and the notice's result; settled exactly once. */
  private record Outgoing(ProducerRecord<String, byte[]> record, CompletableFuture<DeliveryResult> result,
      AtomicBoolean settled) {}

  private final String name;
  private final Producer<String, byte[]> producer;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final Duration busyDelay;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-kafka-", 0).factory());
  private final Completions completions = new Completions(executor);
  private final ConcurrentLinkedQueue<Outgoing> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  /** Topics the producer has metadata for (an ack within {@link #KNOWN_NANOS}): a send to them does not wait. */
  private final Map<String, Long> knownTopics = new ConcurrentHashMap<>();
  private final PeerHealth health;
  private final String cluster;
  private volatile boolean closed;

  private KafkaChannel(Builder b) {
    this.name = b.name();
    this.cluster = b.bootstrapServers;
    this.health = new PeerHealth(b.name(), PeerStatus.Kind.BROKER, b.clock(), 1, b.healthLogEvery());
    health.register(cluster, "kafka://" + cluster);
    this.maxInFlight = b.maxInFlight;
    this.inFlight = new Semaphore(b.maxInFlight);
    this.busyDelay = b.busyDelay();
    Map<String, Object> config = new LinkedHashMap<>(b.properties);
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) b.maxBlock.toMillis());
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) b.deliveryTimeout.toMillis());
    // Kafka insists on delivery.timeout.ms >= linger.ms + request.timeout.ms
    config.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        (int) Math.max(1, Math.min(30_000, b.deliveryTimeout.toMillis() - 10)));
    // throughput from the producer's own batching, at most 5 ms added to a record's way
    config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
    config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "herald-" + b.name());
    this.producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  /** Checks that {@code target} is a legal topic name. */
  @Override
  public void validateTarget(String target) {
    topic(target, "target");
  }

  /** Option {@code key-path}; the engine refuses others at save. */
  @Override
  public java.util.List<dev.herald.spi.DefinitionOption> options() {
    return OPTIONS;
  }

  /**
   * Checks the topic and option {@code key-path}.
   *
   * @throws InvalidInputException naming {@code target} or {@code options.key-path}
   */
  @Override
  public void validate(NoticeDefinition definition) {
    validateTarget(definition.target());
    String path = definition.option(OPTION_KEY_PATH, null);
    if (path != null && !path.matches("[A-Za-z0-9_$-]+(\\.[A-Za-z0-9_$-]+)*")) {
      throw new InvalidInputException("options." + OPTION_KEY_PATH,
          "must be a dotted path into the payload such as order.id, was '" + path + "'");
    }
  }

  private static String topic(String t, String field) {
    if (t == null || t.isEmpty() || t.length() > MAX_TOPIC_LENGTH || !TOPIC.matcher(t).matches()
        || t.equals(".") || t.equals("..")) {
      throw new InvalidInputException(field, "'" + t + "' is not a Kafka topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-')");
    }
    return t;
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery d) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("Kafka channel '" + name + "' is closed"));
    }
    String topic;
    String key;
    try {
      topic = topic(d.target(), "target");
      key = key(d);
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail(e.getMessage() + "\n(nothing sent)"));
    }
    if (!inFlight.tryAcquire()) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "Kafka channel '" + name + "' has its limit of " + maxInFlight + " records awaiting an ack; deferred, not queued"));
    }
    RecordHeaders headers = new RecordHeaders();
    headers.add(HEADER_ID, d.notice().id().toString().getBytes(StandardCharsets.UTF_8));
    headers.add(HEADER_DEFINITION, d.definition().name().getBytes(StandardCharsets.UTF_8));
    headers.add(HEADER_ATTEMPT, Integer.toString(d.attempt()).getBytes(StandardCharsets.UTF_8));
    if (d.traceparent() != null) {
      headers.add(HEADER_TRACEPARENT, d.traceparent().getBytes(StandardCharsets.UTF_8));
    }
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null, key,
        d.notice().payload().getBytes(StandardCharsets.UTF_8), headers);
    Outgoing o = new Outgoing(record, new CompletableFuture<>(), new AtomicBoolean());
    queue.add(o);
    if (draining.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException closing) {
        draining.set(false);
        drainClosed();
      }
    }
    return o.result();
  }

  /**
   * Hands queued records to the producer, one after another on this task. A send blocks while the
   * producer has no metadata for the topic (up to {@code max.block.ms}: a topic that does not exist)
   * or no buffer space left: records to a topic not known yet are sent from a task of their own, so
   * that they never hold up the others.
   */
  private void drain() {
    do {
      Outgoing o;
      while ((o = queue.poll()) != null) {
        if (closed) {
          finish(o, DeliveryResult.retry("Kafka channel '" + name + "' is closed"));
        } else if (known(o.record().topic())) {
          send(o);
        } else {
          Outgoing first = o;
          try {
            executor.execute(() -> send(first));
          } catch (RejectedExecutionException closing) {
            finish(o, DeliveryResult.retry("Kafka channel '" + name + "' is closed"));
          }
        }
      }
      draining.set(false);
      // a record queued after the last poll and before the flag fell found it set: send it now
    } while (!queue.isEmpty() && draining.compareAndSet(false, true));
  }

  private void drainClosed() {
    Outgoing o;
    while ((o = queue.poll()) != null) {
      finish(o, DeliveryResult.retry("Kafka channel '" + name + "' is closed"));
    }
  }

  private boolean known(String topic) {
    Long ackedAt = knownTopics.get(topic);
    return ackedAt != null && System.nanoTime() - ackedAt < KNOWN_NANOS;
  }

  private void send(Outgoing o) {
    String topic = o.record().topic();
    try {
      producer.send(o.record(), new Answer(o));
    } catch (RuntimeException e) {
      finish(o, answered(KafkaOutcome.of(e, topic)));
    }
  }

  /** The send's callback, on the producer's I/O thread: settles the record's notice. */
  private final class Answer implements Callback {
    private final Outgoing o;

    Answer(Outgoing o) {
      this.o = o;
    }

    @Override
    public void onCompletion(RecordMetadata meta, Exception e) {
      String topic = o.record().topic();
      if (e == null) {
        long now = System.nanoTime();
        if (knownTopics.put(topic, now) == null && knownTopics.size() > 1024) { // notices' own targets: many topics
          knownTopics.values().removeIf(ackedAt -> now - ackedAt >= KNOWN_NANOS);
        }
        finish(o, answered(DeliveryResult.delivered("Kafka " + meta.topic() + "-" + meta.partition() + "@" + meta.offset())));
        return;
      }
      if (e instanceof TimeoutException || e instanceof UnknownTopicOrPartitionException) {
        knownTopics.remove(topic); // its metadata may be gone: the next send to it waits on a task of its own
      }
      finish(o, answered(KafkaOutcome.of(e, topic)));
    }
  }

  /** The one way a record leaves the channel: its room is given back and the result handed over. */
  private void finish(Outgoing o, DeliveryResult r) {
    if (!o.settled().compareAndSet(false, true)) {
      return;
    }
    inFlight.release();
    completions.complete(o.result(), r); // off the producer's I/O thread: what follows is the engine's business
  }

  /** Records queued or awaiting an ack now. */
  int inFlight() {
    return maxInFlight - inFlight.availablePermits();
  }

  /** A metric of the producer by name (group {@code producer-metrics}), for tests and the bench; NaN if none. */
  double producerMetric(String metric) {
    return producer.metrics().entrySet().stream()
        .filter(e -> e.getKey().group().equals("producer-metrics") && e.getKey().name().equals(metric))
        .mapToDouble(e -> e.getValue().metricValue() instanceof Number n ? n.doubleValue() : Double.NaN)
        .findFirst().orElse(Double.NaN);
  }

  /**
   * The cluster's state from a result: a retriable error (still failing after the producer's own
   * retries: unreachable, no leader, timed out) counts against it; an ack or a refusal for good (the
   * record is too large, not authorized) means it answered.
   */
  private DeliveryResult answered(DeliveryResult r) {
    if (r.outcome() == DeliveryResult.Outcome.RETRY) {
      health.failed(cluster, r.detail());
    } else {
      health.succeeded(cluster);
    }
    return r;
  }

  /** Sends are pipelined: as many as the channel lets await an ack ({@link Builder#maxInFlight}). */
  @Override
  public int maxConcurrentPerReceiver(NoticeDefinition definition) {
    return maxInFlight;
  }

  /**
   * The cluster (its bootstrap servers): UP once it acked, DOWN while records fail with retriable
   * errors after the producer's own retries, UNKNOWN before the first record. The producer reconnects
   * by itself; the state follows the next record.
   */
  @Override
  public List<PeerStatus> peers() {
    return health.all();
  }

  private static String key(Delivery d) {
    String path = d.definition().option(OPTION_KEY_PATH, null);
    if (path == null) {
      return d.notice().id().toString();
    }
    Object v = JsonTree.at(JsonTree.parse(d.notice().payload(), "payload"), path);
    if (v == null || v instanceof Map<?, ?> || v instanceof List<?>) {
      throw new InvalidInputException("options." + OPTION_KEY_PATH, "payload value '" + path + "' "
          + (v == null ? "has no value" : "is an object or array, not a key"));
    }
    return v.toString();
  }

  /** Flushes and closes the producer, waiting up to 5 s for records awaiting an ack. */
  @Override
  public void close() {
    closed = true;
    producer.close(Duration.ofSeconds(5));
    executor.shutdown();
    drainClosed();
  }

  /** Settings of a {@link KafkaChannel}; only {@link #bootstrapServers(String)} is required. */
  public static final class Builder extends ChannelBuilder<Builder> {
    private String bootstrapServers;
    private Duration deliveryTimeout = Duration.ofSeconds(30);
    private Duration maxBlock = Duration.ofSeconds(5);
    private int maxInFlight = 10_000;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    private Builder() {
      super(NAME);
    }

    /** {@code host:port,host:port} of the cluster (required). */
    public Builder bootstrapServers(String servers) {
      this.bootstrapServers = servers;
      return this;
    }

    /** How long the producer retries one send before the attempt counts as {@code RETRY}; 30s by default. */
    public Builder deliveryTimeout(Duration timeout) {
      this.deliveryTimeout = timeout;
      return this;
    }

    /** How long a send may wait for topic metadata or buffer space; 5s by default. */
    public Builder maxBlock(Duration timeout) {
      this.maxBlock = timeout;
      return this;
    }

    /** Most records awaiting an ack; more are deferred. 10000 by default. */
    public Builder maxInFlight(int max) {
      this.maxInFlight = max;
      return this;
    }

    /**
     * Any other producer setting (security, compression, batching). Idempotence, {@code acks=all}
     * and the serializers are Herald's and cannot be changed.
     */
    public Builder property(String key, Object value) {
      this.properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** @throws InvalidInputException naming the bad setting */
    public KafkaChannel build() {
      checkName();
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new InvalidInputException("bootstrapServers", "is required: host:port of at least one broker");
      }
      for (String fixed : List.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.ACKS_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
        if (properties.containsKey(fixed)) {
          throw new InvalidInputException("properties." + fixed, "is set by Herald (idempotent, acks=all) and cannot be changed");
        }
      }
      positive(deliveryTimeout, "deliveryTimeout");
      positive(maxBlock, "maxBlock");
      positive(busyDelay(), "busyDelay");
      if (maxInFlight < 1) {
        throw new InvalidInputException("maxInFlight", "must be at least 1, was " + maxInFlight);
      }
      return new KafkaChannel(this);
    }
  }
}
