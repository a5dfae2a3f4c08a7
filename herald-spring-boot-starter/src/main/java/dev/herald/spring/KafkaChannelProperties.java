package dev.herald.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The Kafka channel's settings under {@code herald.kafka.*}; setting {@code
 * herald.kafka.bootstrap-servers} (with {@code herald-channel-kafka} on the class path) turns the
 * channel on. See herald-channel-kafka's README.
 */
@ConfigurationProperties("herald.kafka")
public class KafkaChannelProperties {
  /** host:port of at least one broker of the cluster, comma-separated. */
  private String bootstrapServers;
  /** How long the producer retries one send before the attempt counts as failed. */
  private Duration deliveryTimeout = Duration.ofSeconds(30);
  /** How long a send may wait for topic metadata or buffer space. */
  private Duration maxBlock = Duration.ofSeconds(5);
  /** Other producer settings (security.protocol, sasl.*, compression.type...). */
  private Map<String, String> properties = new LinkedHashMap<>();

  public String getBootstrapServers() {
    return bootstrapServers;
  }

  public void setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  public Duration getDeliveryTimeout() {
    return deliveryTimeout;
  }

  public void setDeliveryTimeout(Duration deliveryTimeout) {
    this.deliveryTimeout = deliveryTimeout;
  }

  public Duration getMaxBlock() {
    return maxBlock;
  }

  public void setMaxBlock(Duration maxBlock) {
    this.maxBlock = maxBlock;
  }

  public Map<String, String> getProperties() {
    return properties;
  }

  public void setProperties(Map<String, String> properties) {
    this.properties = properties;
  }
}
