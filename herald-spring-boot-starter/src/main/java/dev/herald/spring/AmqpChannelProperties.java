package dev.herald.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The RabbitMQ (AMQP 0-9-1) channel's settings under {@code herald.amqp.*}; naming a broker in
 * {@code herald.amqp.brokers.<name>} (with {@code herald-channel-amqp} on the class path) turns the
 * channel on. See herald-channel-amqp's README.
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
