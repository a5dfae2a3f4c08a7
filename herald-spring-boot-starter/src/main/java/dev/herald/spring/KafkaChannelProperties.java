package dev.herald.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The Kafka channel's settings under {@code herald.kafka.*}; setting {@code
 * herald.kafka.bootstrap-servers} (with {@code herald-channel-kafka} on the class path) turns the
 * channel on, naming an intake in {@code herald.kafka.intakes.<name>} starts it. See
 * herald-channel-kafka's README.
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

  /**
   * Topics whose records become notices, by name: each takes topic, group-id, and definition (the
   * value is a notice of it) or format=envelope; bootstrap-servers defaults to herald.kafka.bootstrap-servers.
   */
  private Map<String, Intake> intakes = new LinkedHashMap<>();

  /** One topic taken in: where, which, and how a record becomes a notice. */
  public static class Intake {
    /** host:port of the cluster's brokers. Default: herald.kafka.bootstrap-servers. */
    private String bootstrapServers;
    /** The topic to consume. */
    private String topic;
    /** The consumer group: nodes with one group share the partitions. Default: herald-intake-&lt;name&gt;. */
    private String groupId;
    /** Each record's value is the JSON payload of a notice of this definition. */
    private String definition;
    /** envelope: each record is {"definition": ..., "payload": ..., "fireAt": ..., "idempotencyKey": ...}. */
    private String format;
    /** Where records that can never become notices go. Default: the topic's name with .parked. */
    private String parkingTopic;
    /** How long intake waits while Herald refuses new notices (back-pressure, database away). */
    private Duration pause = Duration.ofMillis(200);
    /** Other consumer settings (security.protocol, sasl.*...). */
    private Map<String, String> properties = new LinkedHashMap<>();

    public String getBootstrapServers() { return bootstrapServers; }
    public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
    public String getTopic() { return topic; }
    public void setTopic(String topic) { this.topic = topic; }
    public String getGroupId() { return groupId; }
    public void setGroupId(String groupId) { this.groupId = groupId; }
    public String getDefinition() { return definition; }
    public void setDefinition(String definition) { this.definition = definition; }
    public String getFormat() { return format; }
    public void setFormat(String format) { this.format = format; }
    public String getParkingTopic() { return parkingTopic; }
    public void setParkingTopic(String parkingTopic) { this.parkingTopic = parkingTopic; }
    public Duration getPause() { return pause; }
    public void setPause(Duration pause) { this.pause = pause; }
    public Map<String, String> getProperties() { return properties; }
    public void setProperties(Map<String, String> properties) { this.properties = properties; }
  }

  public Map<String, Intake> getIntakes() {
    return intakes;
  }

  public void setIntakes(Map<String, Intake> intakes) {
    this.intakes = intakes;
  }

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
