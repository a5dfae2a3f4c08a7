package dev.herald.server.docs;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.channel.amqp.AmqpChannel;
import dev.herald.channel.amqp.AmqpIntake;
import dev.herald.channel.kafka.KafkaChannel;
import dev.herald.channel.mail.MailChannel;
import dev.herald.channel.mail.StartTls;
import dev.herald.intake.IntakeFormat;

/**
 * The README's broker and e-mail examples, compiled here (the server depends on every channel
 * module); the channel modules' own tests run the same calls against brokers in the test JVM.
 */
final class ChannelReadmeExamples {
  private ChannelReadmeExamples() {}

  static Herald channels(String smtpPassword) {
    // tag::channels[]
    Herald herald = Herald.builder()
        .channel(AmqpChannel.builder().broker("main", "amqp://herald:secret@rabbit.internal/orders").build())
        .channel(KafkaChannel.builder().bootstrapServers("kafka-1:9092").build())
        .channel(MailChannel.builder().host("smtp.example.com").port(587).startTls(StartTls.REQUIRED)
            .credentials("herald", smtpPassword).from("Shop <noreply@shop.example>").build())
        .define(NoticeDefinition.builder("order-paid").channel("amqp", "orders/order.paid").build())
        .define(NoticeDefinition.builder("order-audit").channel("kafka", "orders.audit").option("key-path", "order.id").build())
        .define(NoticeDefinition.builder("order-shipped").channel("mail", "buyer@shop.example")
            .option("subject", "Order {{order.id}} shipped").option("text", "It left the warehouse.").build())
        .build().start();
    // end::channels[]
    return herald;
  }

  static AmqpIntake intake(Herald herald) throws Exception {
    // tag::intake[]
    AmqpIntake intake = AmqpIntake.builder(herald)
        .uri("amqp://herald:secret@rabbit.internal/orders")
        .queue("payment-notices")
        .format(IntakeFormat.payload("merchant-callback"))
        .build().start();
    // end::intake[]
    return intake;
  }
}
