package dev.herald.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The RabbitMQ (AMQP 0-9-1) channel's settings under {@code herald.amqp.*}; naming a broker in
 * {@code herald.amqp.brokers.<name>} (with {@code herald-channel-amqp} on the class path) turns the
 * channel on, naming an intake in {@code herald.amqp.intakes.<name>} starts it. See
 * herald-channel-amqp's README.
 */
@ConfigurationProperties("herald.amqp")
public class AmqpChannelProperties {
  /** Brokers by name, each an amqp:// or amqps:// URI with credentials and virtual host. */
  private Map<String, String> brokers = new LinkedHashMap<>();
  /** How long to wait for a broker's confirm of a message before the attempt counts as failed. */
  private Duration confirmTimeout = Duration.ofSeconds(10);
  /** TCP connect and AMQP handshake timeout. */
  private Duration connectTimeout = Duration.ofSeconds(5);
  /** After a failed connect, the least time before the next try. */
  private Duration reconnectDelay = Duration.ofSeconds(1);
  /** Most messages awaiting a confirm per broker; more are deferred. */
  private int maxInFlightPerBroker = 1000;
  /** Most messages awaiting a confirm per exchange on a broker (at most the broker's); more are deferred. */
  private int maxInFlightPerExchange = 500;

  /**
   * Queues whose messages become notices, by name: each takes uri (or broker, one of
   * herald.amqp.brokers), queue, and definition (the body is a notice of it) or format=envelope.
   */
  private Map<String, Intake> intakes = new LinkedHashMap<>();

  /** One queue taken in: where, which, and how a message becomes a notice. */
  public static class Intake {
    /** The broker, an amqp:// or amqps:// URI; or give broker instead. */
    private String uri;
    /** One of herald.amqp.brokers, by name, instead of uri. */
    private String broker;
    /** The queue to consume (it must exist). */
    private String queue;
    /** Each message's body is the JSON payload of a notice of this definition. */
    private String definition;
    /** envelope: each message is {"definition": ..., "payload": ..., "fireAt": ..., "idempotencyKey": ...}. */
    private String format;
    /** Where messages that can never become notices go. Default: the queue's name with .parked. */
    private String parkingQueue;
    /** Messages the broker sends ahead of their acknowledgement. */
    private int prefetch = 100;
    /** How long intake waits while Herald refuses new notices (back-pressure, database away). */
    private Duration pause = Duration.ofMillis(200);

    public String getUri() { return uri; }
    public void setUri(String uri) { this.uri = uri; }
    public String getBroker() { return broker; }
    public void setBroker(String broker) { this.broker = broker; }
    public String getQueue() { return queue; }
    public void setQueue(String queue) { this.queue = queue; }
    public String getDefinition() { return definition; }
    public void setDefinition(String definition) { this.definition = definition; }
    public String getFormat() { return format; }
    public void setFormat(String format) { this.format = format; }
    public String getParkingQueue() { return parkingQueue; }
    public void setParkingQueue(String parkingQueue) { this.parkingQueue = parkingQueue; }
    public int getPrefetch() { return prefetch; }
    public void setPrefetch(int prefetch) { this.prefetch = prefetch; }
    public Duration getPause() { return pause; }
    public void setPause(Duration pause) { this.pause = pause; }
  }

  public Map<String, Intake> getIntakes() {
    return intakes;
  }

  public void setIntakes(Map<String, Intake> intakes) {
    this.intakes = intakes;
  }

  public Map<String, String> getBrokers() {
    return brokers;
  }

  public void setBrokers(Map<String, String> brokers) {
    this.brokers = brokers;
  }

  public Duration getConfirmTimeout() {
    return confirmTimeout;
  }

  public void setConfirmTimeout(Duration confirmTimeout) {
    this.confirmTimeout = confirmTimeout;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getReconnectDelay() {
    return reconnectDelay;
  }

  public void setReconnectDelay(Duration reconnectDelay) {
    this.reconnectDelay = reconnectDelay;
  }

  public int getMaxInFlightPerBroker() {
    return maxInFlightPerBroker;
  }

  public void setMaxInFlightPerBroker(int maxInFlightPerBroker) {
    this.maxInFlightPerBroker = maxInFlightPerBroker;
  }

  public int getMaxInFlightPerExchange() {
    return maxInFlightPerExchange;
  }

  public void setMaxInFlightPerExchange(int maxInFlightPerExchange) {
    this.maxInFlightPerExchange = maxInFlightPerExchange;
  }
}
