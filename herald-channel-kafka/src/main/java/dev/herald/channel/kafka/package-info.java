/**
 * The Kafka channel: {@link dev.herald.channel.kafka.KafkaChannel} sends each notice as a record
 * through an idempotent producer with {@code acks=all}.
 */
package dev.herald.channel.kafka;
