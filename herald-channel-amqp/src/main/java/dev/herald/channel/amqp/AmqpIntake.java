package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.Traceparent;
import dev.herald.intake.BrokerIntake;
import dev.herald.intake.IntakeFormat;
import dev.herald.intake.IntakeRetry;
import dev.herald.intake.Refusals;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes notices in from a RabbitMQ queue (document 001). Each message becomes a notice (see {@link
 * IntakeFormat}); the message is acknowledged only once the notice is committed, so a crash in
 * between redelivers it and the idempotency key (the envelope's, else the message id) absorbs the
 * repeat: never a loss. A message that can never become a notice (malformed, or refused for good by
 * Herald: an unknown definition, a fire time out of range, any failure that is not {@link
 * Refusals#forNow for now}) goes to the parking queue with header {@code x-herald-reason} and is
 * acknowledged, so it never blocks the ones behind it. While Herald refuses for back-pressure (its
 * {@code maxBacklog}) or its database is away, intake holds the message and takes no more (prefetch
 * bounds what the broker sends), and resumes by itself.
 *
 * <p>When its consumer goes (the channel or connection closed by the broker, the network or the
 * client, or the consumer cancelled), the intake logs a WARN, {@link #isConsuming()} turns false,
 * and it subscribes again at once and then every {@code recoveryInterval} until it consumes again.
 *
 * <pre>{@code
 * AmqpIntake intake = AmqpIntake.builder(herald)
 *     .uri("amqp://herald:secret@rabbit.internal/orders")
 *     .queue("payment-notices")
 *     .format(IntakeFormat.payload("merchant-callback"))
 *     .build()
 *     .start();
 * }</pre>
 */
public final class AmqpIntake extends BrokerIntake {
  /** Header of a parked message: why it is not a notice. */
  public static final String HEADER_REASON = "x-herald-reason";

  private static final Logger log = LoggerFactory.getLogger(AmqpIntake.class);

  private final Herald herald;
  private final ConnectionFactory factory;
  private final String queue;
  private final String parkingQueue;
  private final IntakeFormat format;
  private final int prefetch;
  private final Duration pause;
  private final Duration recoveryInterval;
  private final Consumer<Notice> afterCommit;
  private final AtomicLong consumerLosses = new AtomicLong();
  /** Guards the connection and channels: the keeper opens them, deliveries park through them. */
  private final Object lock = new Object();
  private volatile boolean running;
  private volatile Taker taker;
  private Connection connection;
  private Channel parking;
  private ScheduledExecutorService keeper;
  private int failedSubscribes;

  private AmqpIntake(Builder b) {
    this.herald = b.herald;
    this.factory = b.factory;
    this.queue = b.queue;
    this.parkingQueue = b.parkingQueue != null ? b.parkingQueue : b.queue + ".parked";
    this.format = b.format;
    this.prefetch = b.prefetch;
    this.pause = b.pause;
    this.recoveryInterval = b.recoveryInterval;
    this.afterCommit = b.afterCommit;
  }

  public static Builder builder(Herald herald) {
    return new Builder(herald);
  }

  /**
   * Connects, declares the parking queue (durable) and starts consuming.
   *
   * @throws IOException if the broker cannot be reached or the queue does not exist (nothing keeps
   *     running then)
   */
  public synchronized AmqpIntake start() throws IOException, TimeoutException {
    if (running) {
      return this;
    }
    running = true;
    keeper = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("herald-intake-keeper-" + queue).factory());
    try {
      subscribe();
    } catch (IOException | TimeoutException | RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /** Opens what is closed (connection, parking channel) and registers a consumer on a new channel. */
  private void subscribe() throws IOException, TimeoutException {
    synchronized (lock) {
      if (!running) {
        return;
      }
      Taker old = taker;
      if (old != null) {
        old.lost = true;
        if (old.getChannel().isOpen()) {
          closeQuietly(old.getChannel()); // cancelled by the broker: its channel is still open
        }
      }
      openParking();
      Channel ch = connection.createChannel();
      if (ch == null) {
        throw new IOException("no channel left on the connection (channel-max reached)");
      }
      Taker t = new Taker(ch);
      taker = t;
      try {
        ch.basicQos(prefetch);
        ch.basicConsume(queue, false, t);
      } catch (IOException | RuntimeException e) {
        t.lost = true;
        closeQuietly(ch);
        throw e;
      }
    }
  }

  /** The parking channel, opening the connection and the channel if they are closed. Under the lock. */
  private Channel openParking() throws IOException, TimeoutException {
    if (connection == null || !connection.isOpen()) {
      closeQuietly(connection);
      connection = null;
      parking = null;
      connection = factory.newConnection("herald-intake-" + queue);
    }
    if (parking == null || !parking.isOpen()) {
      Channel p = connection.createChannel();
      if (p == null) {
        throw new IOException("no channel left on the connection (channel-max reached)");
      }
      p.queueDeclare(parkingQueue, true, false, false, null);
      p.confirmSelect();
      parking = p;
    }
    return parking;
  }

  /** The consumer on one channel; a new one replaces it after it is lost. */
  private final class Taker extends DefaultConsumer {
    volatile boolean lost;

    Taker(Channel ch) {
      super(ch);
    }

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
      take(getChannel(), envelope.getDeliveryTag(), props, body);
    }

    @Override
    public void handleCancel(String consumerTag) {
      lost(this, "the broker cancelled the consumer (was queue '" + queue + "' deleted?)");
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      lost(this, BrokerPublisher.describe(sig));
    }
  }

  private void lost(Taker t, String why) {
    if (t.lost || !running) {
      return; // already replaced, or closing
    }
    t.lost = true;
    consumerLosses.incrementAndGet();
    log.warn("intake from '{}' lost its consumer ({}); subscribing again now and every {} until it consumes",
        queue, why, recoveryInterval);
    try {
      keeper.execute(this::resubscribe); // not on the connection's thread, which must not wait on it
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void resubscribe() {
    if (!running || isConsuming()) {
      return;
    }
    try {
      subscribe();
      log.info("intake from '{}' consumes again", queue);
      failedSubscribes = 0;
    } catch (IOException | TimeoutException | RuntimeException e) {
      if (failedSubscribes++ % 30 == 0) {
        log.warn("intake from '{}' cannot subscribe again yet: {}", queue, BrokerPublisher.describe(e));
      }
      try {
        keeper.schedule(this::resubscribe, recoveryInterval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        // closed meanwhile
      }
    }
  }

  /** The message's W3C traceparent header, if valid, so the notice continues the publisher's trace. */
  private static NoticeRequest withTrace(NoticeRequest request, AMQP.BasicProperties props) {
    Object header = props.getHeaders() == null ? null : props.getHeaders().get(Traceparent.HEADER);
    String traceparent = header == null ? null : Traceparent.orNull(header.toString());
    return traceparent == null || request.traceparent() != null ? request : request.traceparent(traceparent);
  }

  private void take(Channel ch, long deliveryTag, AMQP.BasicProperties props, byte[] body) {
    Notice notice;
    try {
      NoticeRequest request = withTrace(format.decode(body, props.getMessageId()), props);
      notice = IntakeRetry.enqueue(herald, request, pause, () -> running && ch.isOpen(), why -> {
        if (countPause()) {
          log.info("intake from '{}' paused: {}", queue, why.getMessage());
        }
      });
    } catch (RuntimeException e) { // malformed, unknown definition, out of range...: parked, never blocks the rest
      if (park(ch, props, body, e)) {
        ack(ch, deliveryTag);
      }
      return;
    }
    if (notice == null) {
      return; // stopping, or the channel is gone: not acknowledged, so the broker delivers it again
    }
    afterCommit.accept(notice);
    ack(ch, deliveryTag);
    countTaken();
  }

  private void ack(Channel ch, long deliveryTag) {
    try {
      ch.basicAck(deliveryTag, false);
    } catch (IOException | ShutdownSignalException e) {
      log.info("intake from '{}' could not acknowledge a message ({}); the broker delivers it again and its key"
          + " absorbs the repeat", queue, BrokerPublisher.describe(e));
    }
  }

  /**
   * Publishes the message to the parking queue and waits for the broker's confirm, trying again
   * every {@code pause} while that fails; false if the intake stops or the message's channel closes
   * first (the message is not acknowledged then, so the broker delivers it again).
   */
  private boolean park(Channel from, AMQP.BasicProperties props, byte[] body, RuntimeException why) {
    String reason = Refusals.reason(why);
    Map<String, Object> headers = new LinkedHashMap<>(props.getHeaders() == null ? Map.of() : props.getHeaders());
    headers.put(HEADER_REASON, reason);
    AMQP.BasicProperties parkedProps = props.builder().headers(headers).deliveryMode(2).build();
    for (int tries = 0; running && from.isOpen(); tries++) {
      try {
        synchronized (lock) {
          Channel p = openParking();
          p.basicPublish("", parkingQueue, parkedProps, body);
          p.waitForConfirmsOrDie(10_000);
        }
        countParked();
        if (why instanceof HeraldException) {
          log.warn("parked a message from '{}' in '{}': {}", queue, parkingQueue, reason);
        } else { // not a refusal Herald explains: the stack trace tells where it came from
          log.warn("parked a message from '{}' in '{}': {}", queue, parkingQueue, reason, why);
        }
        return true;
      } catch (IOException | TimeoutException | ShutdownSignalException e) {
        if (tries % 30 == 0) {
          log.warn("intake from '{}' cannot park a message in '{}' ({}); holding it and trying again",
              queue, parkingQueue, BrokerPublisher.describe(e));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /**
   * Whether a consumer is subscribed to the queue now: false before {@link #start()}, after {@link
   * #close()}, and from the loss of its channel or connection until it is subscribed again. For a
   * health check.
   */
  public boolean isConsuming() {
    Taker t = taker;
    return running && t != null && !t.lost && t.getChannel().isOpen();
  }

  /** How many times the consumer was lost (and subscribed again, if {@link #isConsuming()}). */
  public long consumerLosses() {
    return consumerLosses.get();
  }

  /** The channel the consumer is on now, for tests that close it. */
  Channel consumerChannel() {
    Taker t = taker;
    return t == null ? null : t.getChannel();
  }

  /** Stops consuming; a message being taken in and not yet committed is redelivered to the next consumer. */
  @Override
  public synchronized void close() {
    running = false;
    if (keeper != null) {
      keeper.shutdownNow();
    }
    synchronized (lock) {
      if (connection != null) {
        try {
          connection.close(5_000);
        } catch (IOException | RuntimeException e) {
          log.debug("intake from '{}': closing the connection: {}", queue, e.toString());
        }
      }
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      log.debug("closing {}: {}", c, e.toString()); // it is going anyway
    }
  }

  /** Settings of an {@link AmqpIntake}: broker, queue and format are required. */
  public static final class Builder {
    private final Herald herald;
    private ConnectionFactory factory;
    private String queue;
    private String parkingQueue;
    private IntakeFormat format;
    private int prefetch = 100;
    private Duration pause = Duration.ofMillis(200);
    private Duration recoveryInterval = Duration.ofSeconds(1);
    private Consumer<Notice> afterCommit = n -> {};

    private Builder(Herald herald) {
      this.herald = Objects.requireNonNull(herald, "herald");
    }

    /** The broker, as an {@code amqp://} or {@code amqps://} URI; a bare trailing slash means the default vhost. */
    public Builder uri(String uri) {
      return connectionFactory(AmqpUri.factory(uri, "uri"));
    }

    /** The broker, through a connection factory you set up (TLS, credentials provider...). */
    public Builder connectionFactory(ConnectionFactory f) {
      this.factory = f;
      return this;
    }

    /** The queue to consume (it must exist). */
    public Builder queue(String queue) {
      this.queue = queue;
      return this;
    }

    /** Where malformed messages go; {@code <queue>.parked} by default (declared durable). */
    public Builder parkingQueue(String queue) {
      this.parkingQueue = queue;
      return this;
    }

    public Builder format(IntakeFormat format) {
      this.format = format;
      return this;
    }

    /** Most unacknowledged messages the broker sends ahead; 100 by default. */
    public Builder prefetch(int prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /** How long to wait before trying again when Herald refuses for now; 200ms by default. */
    public Builder pause(Duration pause) {
      this.pause = pause;
      return this;
    }

    /** After the consumer is lost and subscribing again failed, how long until the next try; 1s by default. */
    public Builder recoveryInterval(Duration interval) {
      this.recoveryInterval = interval;
      return this;
    }

    /** Runs after a notice is committed and before its message is acknowledged (tests crash here). */
    Builder afterCommit(Consumer<Notice> hook) {
      this.afterCommit = hook;
      return this;
    }

    /** @throws InvalidInputException naming the missing or bad setting */
    public AmqpIntake build() {
      if (factory == null) {
        throw new InvalidInputException("uri", "is required: the broker to consume from");
      }
      if (queue == null || queue.isBlank()) {
        throw new InvalidInputException("queue", "is required: the queue to take notices from");
      }
      if (format == null) {
        throw new InvalidInputException("format", "is required: IntakeFormat.payload(definition) or IntakeFormat.envelope()");
      }
      if (prefetch < 1) {
        throw new InvalidInputException("prefetch", "must be at least 1, was " + prefetch);
      }
      if (pause == null || pause.isNegative() || pause.isZero()) {
        throw new InvalidInputException("pause", "must be positive, was " + pause);
      }
      if (recoveryInterval == null || recoveryInterval.isNegative() || recoveryInterval.isZero()) {
        throw new InvalidInputException("recoveryInterval", "must be positive, was " + recoveryInterval);
      }
      // the intake subscribes again itself, on a new channel, whatever closed the old one: the
      // client's own recovery covers only a lost connection, not a channel the broker or client closed
      factory.setAutomaticRecoveryEnabled(false);
      factory.setTopologyRecoveryEnabled(false);
      return new AmqpIntake(this);
    }
  }
}
