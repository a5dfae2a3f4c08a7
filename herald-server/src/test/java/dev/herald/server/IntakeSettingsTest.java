package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Document 001's notices arrive on a RabbitMQ queue, set up with the server's settings alone: the
 * intake takes each message as a notice, which the server delivers as a webhook.
 */
class IntakeSettingsTest {

  @Test
  void aQueueNamedInTheSettingsBecomesNoticesDeliveredAsWebhooks() throws Exception {
    try (EmbeddedBroker broker = new EmbeddedBroker(); Receiver merchant = new Receiver()) {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri("amqp://guest:guest@127.0.0.1:" + broker.port());
      try (Connection c = f.newConnection("test"); Channel ch = c.createChannel()) {
        ch.queueDeclare("payment-notices", true, false, false, null);
        try (TestServer server = TestServer.start(TestServer.tempDir(),
            "--herald.amqp.intakes.payments.uri=amqp://guest:guest@127.0.0.1:" + broker.port() + "/",
            "--herald.amqp.intakes.payments.queue=payment-notices",
            "--herald.amqp.intakes.payments.definition=merchant-callback",
            "--herald.definitions.merchant-callback.channel=http",
            "--herald.definitions.merchant-callback.target=" + merchant.url("/notify"),
            "--management.endpoint.health.show-details=always")) {
          AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId("payment-42").build();
          ch.basicPublish("", "payment-notices", props, "{\"order\":42,\"status\":\"paid\"}".getBytes(StandardCharsets.UTF_8));
          await().atMost(Duration.ofSeconds(20)).until(() -> merchant.requests.stream()
              .anyMatch(r -> r.body().equals("{\"order\":42,\"status\":\"paid\"}")));
          TestServer.Resp health = server.as(null).get("/actuator/health");
          assertThat(health.json().path("components").path("heraldAmqpIntakes").path("components").path("payments")
              .path("status").asString()).isEqualTo("UP");
        }
      }
    }
  }
}
