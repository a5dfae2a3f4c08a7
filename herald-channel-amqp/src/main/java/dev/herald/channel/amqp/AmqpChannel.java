package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.Completions;
import dev.herald.schedule.DurationText;
import dev.herald.spi.Channel;
import dev.herald.spi.ChannelBuilder;
import dev.herald.spi.Delivery;
import dev.herald.spi.PeerStatus;
import dev.herald.health.PeerHealth;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes notices to RabbitMQ (AMQP 0-9-1) as persistent messages with {@code mandatory} set, in
 * confirm mode: the broker's ack makes the attempt {@code DELIVERED}; a nack, no confirm within
 * the timeout, or a lost connection makes it {@code RETRY}; a message no queue takes (returned
 * unroutable) makes it {@code FAIL}. The message id is the notice id (the same on every attempt,
 * so consumers can drop repeats); headers {@code x-herald-definition} and {@code x-herald-attempt}
 * say what it is; the body is the JSON payload ({@code application/json}).
 *
 * <p>The target is {@code exchange/routing-key} (see {@code AmqpTarget}); a notice's own target
 * overrides the definition's. Definition options: {@code broker} (which of the builder's brokers;
 * required when there are several), {@code confirm-timeout} (default: the builder's).
 *
 * <pre>{@code
 * AmqpChannel amqp = AmqpChannel.builder()
 *     .broker("main", "amqp://herald:secret@rabbit.internal:5672/orders")
 *     .build();
 * Herald herald = Herald.builder()
 *     .channel(amqp)
 *     .define(NoticeDefinition.builder("order-paid")
 *         .channel("amqp", "orders/order.paid")
 *         .build())
 *     .build().start();
 * }</pre>
 *
 * <p>Each broker has its own connection and limit of unconfirmed messages: a broker that is down,
 * slow to confirm or blocked by a resource alarm holds up only its own notices. Each exchange has its
 * own channel, on which many messages are in flight at once (up to {@code maxInFlightPerExchange}):
 * confirms settle the messages they name as they come, so one slow confirm holds up nothing else.
 */
public final class AmqpChannel implements Channel {
  /** The default channel name, used by definitions as {@code .channel("amqp", "exchange/key")}. */
  public static final String NAME = "amqp";
  /** Header carrying the definition's name. */
  public static final String HEADER_DEFINITION = "x-herald-definition";
  /** Header carrying the attempt number, 1 for the first. */
  public static final String HEADER_ATTEMPT = "x-herald-attempt";
  /** Header carrying the W3C trace context, when the notice has one (the name tracing libraries read). */
  public static final String HEADER_TRACEPARENT = "traceparent";

  static final String OPTION_BROKER = "broker";
  static final String OPTION_CONFIRM_TIMEOUT = "confirm-timeout";
  /** Every option this channel reads. */
  static final List<dev.herald.spi.DefinitionOption> OPTIONS = List.of(
      dev.herald.spi.DefinitionOption.text(OPTION_BROKER, "the broker's name, when the channel has more than one"),
      dev.herald.spi.DefinitionOption.duration(OPTION_CONFIRM_TIMEOUT, "how long to wait for the broker's confirm"));
  /** How often overdue confirms are looked for: a confirm timeout is kept to within this. */
  private static final long SWEEP_MILLIS = 50;

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AmqpChannel.class);

  private final String name;
  private final Map<String, BrokerPublisher> brokers;
  private final String defaultBroker;
  private final Duration confirmTimeout;
  private final int maxInFlightPerBroker;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-amqp-", 0).factory());
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("herald-amqp-confirms").factory());
  private final Completions completions = new Completions(executor);
  private final PeerHealth health;
  private final AtomicBoolean probing = new AtomicBoolean();
  private volatile boolean closed;

  private AmqpChannel(Builder b) {
    this.name = b.name();
    this.confirmTimeout = b.confirmTimeout;
    this.maxInFlightPerBroker = b.maxInFlightPerBroker;
    this.health = new PeerHealth(b.name(), PeerStatus.Kind.BROKER, b.clock(), 1, b.healthLogEvery());
    Map<String, BrokerPublisher> m = new LinkedHashMap<>();
    b.brokers.forEach((n, f) -> {
      health.register(n, address(f));
      m.put(n, new BrokerPublisher(n, f, b.reconnectDelay, b.busyDelay(), b.maxInFlightPerBroker,
          Math.min(b.maxInFlightPerExchange, b.maxInFlightPerBroker), executor, completions, timer, b.clock(), health));
    });
    this.brokers = Map.copyOf(m);
    this.defaultBroker = b.brokers.size() == 1 ? b.brokers.keySet().iterator().next() : null;
    timer.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    long probe = b.healthProbeInterval.toMillis();
    timer.scheduleWithFixedDelay(this::probeBrokersNotUp, 0, probe, TimeUnit.MILLISECONDS);
  }

  /** Where a broker is, without its credentials. */
  private static String address(ConnectionFactory f) {
    String vhost = f.getVirtualHost().equals("/") ? "" : f.getVirtualHost();
    return (f.isSSL() ? "amqps://" : "amqp://") + f.getHost() + ":" + f.getPort() + "/" + vhost;
  }

  /** Connects to every broker not known to be up, on the channel's own threads (never on the confirm timer). */
  private void probeBrokersNotUp() {
    if (closed || !probing.compareAndSet(false, true)) {
      return;
    }
    try {
      executor.execute(() -> {
        try {
          for (Map.Entry<String, BrokerPublisher> e : brokers.entrySet()) {
            if (health.status(e.getKey()).state() != PeerStatus.State.UP && !closed) {
              e.getValue().probe();
            }
          }
        } finally {
          probing.set(false);
        }
      });
    } catch (RuntimeException e) { // closing
      probing.set(false);
    }
  }

  /** Publishes are pipelined: as many as a broker lets await a confirm ({@link Builder#maxInFlightPerBroker}). */
  @Override
  public int maxConcurrentPerReceiver(NoticeDefinition definition) {
    return maxInFlightPerBroker;
  }

  /** Each broker: UP, DOWN (since when, failed attempts, last error) or UNKNOWN before the first connection. */
  @Override
  public List<PeerStatus> peers() {
    return health.all();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Retries overdue confirms; never throws, as a periodic task that throws is never run again. */
  private void sweep() {
    long now = System.nanoTime();
    for (BrokerPublisher p : brokers.values()) {
      try {
        p.sweep(now);
      } catch (RuntimeException e) {
        log.error("AMQP channel '{}': looking for overdue confirms on broker '{}' failed", name, p.name(), e);
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  /** Checks that {@code target} is {@code exchange/routing-key}. */
  @Override
  public void validateTarget(String target) {
    AmqpTarget.parse(target, "target");
  }

  /** Options {@code broker} and {@code confirm-timeout}; the engine refuses others at save. */
  @Override
  public List<dev.herald.spi.DefinitionOption> options() {
    return OPTIONS;
  }

  /**
   * Checks the target and options {@code broker} and {@code confirm-timeout}.
   *
   * @throws InvalidInputException naming {@code target} or {@code options.<key>}
   */
  @Override
  public void validate(NoticeDefinition definition) {
    validateTarget(definition.target());
    broker(definition);
    confirmTimeout(definition);
  }

  /** The names of the brokers, and whether each is connected now (see {@link #peers()} for more). */
  public Map<String, Boolean> brokers() {
    Map<String, Boolean> out = new LinkedHashMap<>();
    brokers.keySet().stream().sorted().forEach(n -> out.put(n, brokers.get(n).connected()));
    return out;
  }

  /** The broker's publisher, for tests. */
  BrokerPublisher publisher(String broker) {
    return brokers.get(broker);
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery d) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("AMQP channel '" + name + "' is closed"));
    }
    AmqpTarget target;
    BrokerPublisher broker;
    Duration timeout;
    try {
      target = AmqpTarget.parse(d.target(), "target");
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail(e.getMessage() + "\n(nothing published)"));
    }
    try {
      broker = brokers.get(broker(d.definition()));
      timeout = confirmTimeout(d.definition());
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("definition '" + d.definition().name()
          + "' has a bad option: " + e.getMessage() + "\n(nothing published; fix the definition and the next attempt uses it)"));
    }
    String id = d.notice().id().toString();
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(HEADER_DEFINITION, d.definition().name());
    headers.put(HEADER_ATTEMPT, d.attempt());
    if (d.traceparent() != null) {
      headers.put(HEADER_TRACEPARENT, d.traceparent());
    }
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .messageId(id)
        .contentType("application/json")
        .contentEncoding("utf-8")
        .deliveryMode(2)
        .timestamp(new Date())
        .appId("herald")
        .headers(headers)
        .build();
    return broker.publish(target, props, d.notice().payload().getBytes(StandardCharsets.UTF_8),
        id + "/" + d.attempt(), timeout);
  }

  private String broker(NoticeDefinition d) {
    String b = d.option(OPTION_BROKER, defaultBroker);
    if (b == null) {
      throw new InvalidInputException("options." + OPTION_BROKER,
          "is required: the AMQP channel has several brokers " + List.copyOf(brokers.keySet().stream().sorted().toList()));
    }
    if (!brokers.containsKey(b)) {
      throw new InvalidInputException("options." + OPTION_BROKER,
          "'" + b + "' is not one of the AMQP channel's brokers " + brokers.keySet().stream().sorted().toList());
    }
    return b;
  }

  private Duration confirmTimeout(NoticeDefinition d) {
    String t = d.option(OPTION_CONFIRM_TIMEOUT, null);
    if (t == null) {
      return confirmTimeout;
    }
    Duration v = DurationText.parse(t, "options." + OPTION_CONFIRM_TIMEOUT);
    if (v.isZero()) {
      throw new InvalidInputException("options." + OPTION_CONFIRM_TIMEOUT, "must be positive, was " + t.strip());
    }
    return v;
  }

  /** Closes the connections; messages still awaiting a confirm count as {@code RETRY}. */
  @Override
  public void close() {
    closed = true;
    brokers.values().forEach(BrokerPublisher::close);
    timer.shutdownNow();
    executor.shutdown();
  }

  /** Settings of an {@link AmqpChannel}; at least one broker is required. */
  public static final class Builder extends ChannelBuilder<Builder> {
    private final Map<String, ConnectionFactory> brokers = new LinkedHashMap<>();
    private Duration confirmTimeout = Duration.ofSeconds(10);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration reconnectDelay = Duration.ofSeconds(1);
    private int maxInFlightPerBroker = 1000;
    private int maxInFlightPerExchange = 500;
    private Duration healthProbeInterval = Duration.ofSeconds(5);

    private Builder() {
      super(NAME);
    }

    /**
     * How often a broker that is not connected is tried, so that its state is known without traffic
     * (down at start, back after an outage); 5s by default.
     */
    public Builder healthProbeInterval(Duration interval) {
      this.healthProbeInterval = interval;
      return this;
    }

    /**
     * A broker by name, at an {@code amqp://user:password@host:port/vhost} or {@code amqps://} URI;
     * without a vhost, or with a bare trailing slash ({@code amqp://host/}), the default vhost {@code /}.
     *
     * @throws InvalidInputException naming {@code brokers.<name>} if the URI is not one
     */
    public Builder broker(String brokerName, String uri) {
      return broker(brokerName, AmqpUri.factory(uri, "brokers." + brokerName));
    }

    /** A broker by name, with a connection factory set up by you (TLS, credentials provider...). */
    public Builder broker(String brokerName, ConnectionFactory factory) {
      if (brokerName == null || !brokerName.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
        throw new InvalidInputException("brokers", "name '" + brokerName + "' must be 1 to 64 of a-z, 0-9, '.', '_', '-'");
      }
      brokers.put(brokerName, factory);
      return this;
    }

    /** How long to wait for the broker's confirm of a message; 10s by default. */
    public Builder confirmTimeout(Duration timeout) {
      this.confirmTimeout = timeout;
      return this;
    }

    /** TCP connect, AMQP handshake and channel set-up timeout; 5s by default. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** After a failed connect, the least time before the next try; 1s by default. */
    public Builder reconnectDelay(Duration delay) {
      this.reconnectDelay = delay;
      return this;
    }

    /** Most messages awaiting a confirm per broker; more are deferred. 1000 by default. */
    public Builder maxInFlightPerBroker(int max) {
      this.maxInFlightPerBroker = max;
      return this;
    }

    /**
     * Most messages queued or awaiting a confirm per exchange on a broker, so that an exchange slow
     * to confirm leaves the rest of its broker's room to the others; more are deferred. 500 by default
     * (at most {@code maxInFlightPerBroker}).
     */
    public Builder maxInFlightPerExchange(int max) {
      this.maxInFlightPerExchange = max;
      return this;
    }

    /** @throws InvalidInputException naming the bad setting */
    public AmqpChannel build() {
      checkName();
      if (brokers.isEmpty()) {
        throw new InvalidInputException("brokers", "at least one broker is required: .broker(\"main\", \"amqp://...\")");
      }
      positive(confirmTimeout, "confirmTimeout");
      positive(connectTimeout, "connectTimeout");
      positive(reconnectDelay, "reconnectDelay");
      positive(busyDelay(), "busyDelay");
      positive(healthProbeInterval, "healthProbeInterval");
      positive(healthLogEvery(), "healthLogEvery");
      if (maxInFlightPerBroker < 1) {
        throw new InvalidInputException("maxInFlightPerBroker", "must be at least 1, was " + maxInFlightPerBroker);
      }
      if (maxInFlightPerExchange < 1) {
        throw new InvalidInputException("maxInFlightPerExchange", "must be at least 1, was " + maxInFlightPerExchange);
      }
      for (ConnectionFactory f : brokers.values()) {
        f.setConnectionTimeout((int) connectTimeout.toMillis());
        f.setHandshakeTimeout((int) connectTimeout.toMillis());
        f.setChannelRpcTimeout((int) connectTimeout.toMillis()); // opening a channel, confirm.select, a passive declare
        f.setAutomaticRecoveryEnabled(false); // recovered lazily by BrokerPublisher, pending confirms failed first
        f.setTopologyRecoveryEnabled(false);
      }
      return new AmqpChannel(this);
    }
  }
}
