/**
 * Taking notices in from a message queue (document 001): {@link dev.herald.intake.IntakeFormat}
 * turns a message into a {@link dev.herald.NoticeRequest} or says why it cannot. The broker
 * modules (herald-channel-amqp, herald-channel-kafka) consume with it.
 */
package dev.herald.intake;
