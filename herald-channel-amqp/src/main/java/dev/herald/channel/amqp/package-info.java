/**
 * The RabbitMQ (AMQP 0-9-1) channel: {@link dev.herald.channel.amqp.AmqpChannel} publishes each
 * notice as a persistent message and counts it delivered when the broker confirms it.
 */
package dev.herald.channel.amqp;
