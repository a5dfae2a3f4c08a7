package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.Traceparent;
import dev.herald.intake.IntakeFormat;
import dev.herald.intake.IntakeRetry;
import dev.herald.intake.MalformedMessageException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes notices in from a RabbitMQ queue (document 001). Each message becomes a notice (see {@link
 * IntakeFormat}); the message is acknowledged only once the notice is committed, so a crash in
 * between redelivers it and the idempotency key (the envelope's, else the message id) absorbs the
 * repeat: never a loss. A message that can never become a notice goes to the parking queue with
 * header {@code x-herald-reason} and is acknowledged, so it never blocks the ones behind it. While
 * Herald refuses for back-pressure (its {@code maxBacklog}) or its database is away, intake holds
 * the message and takes no more (prefetch bounds what the broker sends), and resumes by itself.
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
public final class AmqpIntake implements AutoCloseable {
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
  private final Consumer<Notice> afterCommit;
  private final AtomicLong taken = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong pauses = new AtomicLong();
  private volatile boolean running;
  private Connection connection;
  private Channel parking;

  private AmqpIntake(Builder b) {
    this.herald = b.herald;
    this.factory = b.factory;
    this.queue = b.queue;
    this.parkingQueue = b.parkingQueue != null ? b.parkingQueue : b.queue + ".parked";
    this.format = b.format;
    this.prefetch = b.prefetch;
    this.pause = b.pause;
    this.afterCommit = b.afterCommit;
  }

  public static Builder builder(Herald herald) {
    return new Builder(herald);
  }

  /**
   * Connects, declares the parking queue (durable) and starts consuming. The connection recovers by
   * itself after a network failure or broker restart; unacknowledged messages are redelivered.
   */
  public synchronized AmqpIntake start() throws IOException, TimeoutException {
    if (running) {
      return this;
    }
    running = true;
    connection = factory.newConnection("herald-intake-" + queue);
    parking = connection.createChannel();
    parking.queueDeclare(parkingQueue, true, false, false, null);
    parking.confirmSelect();
    Channel ch = connection.createChannel();
    ch.basicQos(prefetch);
    ch.basicConsume(queue, false, "herald-intake", new DefaultConsumer(ch) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
          throws IOException {
        take(getChannel(), envelope.getDeliveryTag(), props, body);
      }
    });
    return this;
  }

  /** The message's W3C traceparent header, if valid, so the notice continues the publisher's trace. */
  private static NoticeRequest withTrace(NoticeRequest request, AMQP.BasicProperties props) {
    Object header = props.getHeaders() == null ? null : props.getHeaders().get(Traceparent.HEADER);
    String traceparent = header == null ? null : Traceparent.orNull(header.toString());
    return traceparent == null || request.traceparent() != null ? request : request.traceparent(traceparent);
  }

  private void take(Channel ch, long deliveryTag, AMQP.BasicProperties props, byte[] body) throws IOException {
    NoticeRequest request;
    try {
      request = withTrace(format.decode(body, props.getMessageId()), props);
    } catch (MalformedMessageException e) {
      park(props, body, e.getMessage());
      ch.basicAck(deliveryTag, false);
      return;
    }
    Notice notice;
    try {
      notice = IntakeRetry.enqueue(herald, request, pause, () -> running, why -> {
        if (pauses.getAndIncrement() % 50 == 0) {
          log.info("intake from '{}' paused: {}", queue, why.getMessage());
        }
      });
    } catch (InvalidInputException e) { // unknown definition, payload too large...
      park(props, body, e.getMessage());
      ch.basicAck(deliveryTag, false);
      return;
    }
    if (notice == null) {
      return; // stopping: not acknowledged, so the broker gives it to the next consumer
    }
    afterCommit.accept(notice);
    ch.basicAck(deliveryTag, false);
    taken.incrementAndGet();
  }

  private void park(AMQP.BasicProperties props, byte[] body, String reason) throws IOException {
    Map<String, Object> headers = new LinkedHashMap<>(props.getHeaders() == null ? Map.of() : props.getHeaders());
    headers.put(HEADER_REASON, reason.length() > 1000 ? reason.substring(0, 1000) : reason);
    AMQP.BasicProperties parkedProps = props.builder().headers(headers).deliveryMode(2).build();
    synchronized (parking) {
      parking.basicPublish("", parkingQueue, parkedProps, body);
      try {
        parking.waitForConfirmsOrDie(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while parking a message", e);
      } catch (TimeoutException e) {
        throw new IOException("parking queue '" + parkingQueue + "' did not confirm", e);
      }
    }
    parked.incrementAndGet();
    log.warn("parked a message from '{}' in '{}': {}", queue, parkingQueue, reason);
  }

  /** Messages that became notices (or matched an earlier one by key). */
  public long taken() {
    return taken.get();
  }

  /** Messages sent to the parking queue. */
  public long parked() {
    return parked.get();
  }

  /** Refusals waited out (back-pressure or database away). */
  public long pauses() {
    return pauses.get();
  }

  /** Stops consuming; a message being taken in and not yet committed is redelivered to the next consumer. */
  @Override
  public synchronized void close() {
    running = false;
    if (connection != null) {
      try {
        connection.close(5_000);
      } catch (IOException | RuntimeException e) {
        // already closed
      }
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
    private Consumer<Notice> afterCommit = n -> {};

    private Builder(Herald herald) {
      this.herald = Objects.requireNonNull(herald, "herald");
    }

    /** The broker, as an {@code amqp://} or {@code amqps://} URI. */
    public Builder uri(String uri) {
      ConnectionFactory f = new ConnectionFactory();
      try {
        f.setUri(uri);
      } catch (URISyntaxException | GeneralSecurityException | IllegalArgumentException e) {
        throw new InvalidInputException("uri", "is not an amqp:// or amqps:// URI: " + e.getMessage());
      }
      return connectionFactory(f);
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
      factory.setAutomaticRecoveryEnabled(true);
      factory.setNetworkRecoveryInterval(1000);
      return new AmqpIntake(this);
    }
  }
}
