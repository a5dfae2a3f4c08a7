package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.herald.Herald;
import dev.herald.channel.amqp.AmqpChannel;
import dev.herald.channel.kafka.KafkaChannel;
import dev.herald.channel.mail.MailChannel;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The mail, AMQP and Kafka channels: configured from properties when their module is present. */
class HeraldChannelsAutoConfigurationTest {
  static GreenMail smtp;

  @TempDir Path dir;

  @BeforeAll
  static void startSmtp() {
    smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    smtp.start();
  }

  @AfterAll
  static void stopSmtp() {
    smtp.stop();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HeraldChannelsAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withPropertyValues("herald.h2-file=" + dir.resolve("herald"), "herald.shutdown-timeout=1s");
  }

  @Test
  void aMailDefinitionInPropertiesIsSentThroughTheConfiguredServer() {
    runner().withPropertyValues(
            "herald.mail.host=127.0.0.1",
            "herald.mail.port=" + smtp.getSmtp().getPort(),
            "herald.mail.from=Shop <noreply@shop.example>",
            "herald.definitions.order-shipped.channel=mail",
            "herald.definitions.order-shipped.target=buyer@shop.example",
            "herald.definitions.order-shipped.options.subject=Order {{order.id}} shipped",
            "herald.definitions.order-shipped.options.text=It left the warehouse.")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(MailChannel.class);
          ctx.getBean(Herald.class).enqueue("order-shipped", "{\"order\":{\"id\":42}}");
          await().atMost(Duration.ofSeconds(10)).until(() -> smtp.getReceivedMessages().length == 1);
          assertThat(smtp.getReceivedMessages()[0].getSubject()).isEqualTo("Order 42 shipped");
        });
  }

  @Test
  void amqpAndKafkaChannelsComeFromTheirProperties() {
    runner().withPropertyValues(
            "herald.amqp.brokers.main=amqp://guest:guest@127.0.0.1:5672",
            "herald.kafka.bootstrap-servers=127.0.0.1:9092",
            "herald.definitions.order-paid.channel=amqp",
            "herald.definitions.order-paid.target=orders/order.paid",
            "herald.definitions.order-audit.channel=kafka",
            "herald.definitions.order-audit.target=orders.audit")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(AmqpChannel.class).hasSingleBean(KafkaChannel.class)
              .doesNotHaveBean(MailChannel.class);
          assertThat(ctx.getBean(AmqpChannel.class).brokers()).containsOnlyKeys("main");
        });
  }

  @Test
  void withoutSettingsOrWithoutTheModuleThereIsNoChannel() {
    runner().run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(MailChannel.class)
        .doesNotHaveBean(AmqpChannel.class).doesNotHaveBean(KafkaChannel.class));
    runner().withClassLoader(new FilteredClassLoader(MailChannel.class))
        .withPropertyValues("herald.mail.host=127.0.0.1")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(MailChannel.class));
  }

  @Test
  void aBadChannelSettingOrOptionStopsTheStartNamingTheProperty() {
    runner().withPropertyValues("herald.mail.host=127.0.0.1", "herald.mail.start-tls=sometimes")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.mail.start-tls");
        });
    runner().withPropertyValues("herald.amqp.brokers.main=http://not-amqp")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.amqp.brokers.main");
        });
    runner().withPropertyValues("herald.mail.host=127.0.0.1", "herald.mail.from=noreply@shop.example",
            "herald.definitions.order-shipped.channel=mail",
            "herald.definitions.order-shipped.target=buyer@shop.example",
            "herald.definitions.order-shipped.options.text=no subject")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("options.subject");
        });
  }

  @Test
  void theHttpChannelComesWithTheModuleAndSendsThroughTheEgressProxy() throws Exception {
    java.util.List<String> proxied = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer proxy = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext("/", ex -> {
      proxied.add(ex.getRequestMethod() + " " + ex.getRequestURI());
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    proxy.start();
    try {
      runner().withPropertyValues(
              "herald.http.allow=localhost",
              "herald.http.proxy=http://127.0.0.1:" + proxy.getAddress().getPort(),
              "herald.http.proxy-exclude=*.internal",
              "herald.definitions.partner.channel=http",
              "herald.definitions.partner.target=http://localhost:9/hooks")
          .run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(dev.herald.channel.http.HttpChannel.class);
            ctx.getBean(Herald.class).enqueue("partner", "{}");
            await().atMost(Duration.ofSeconds(10)).until(() -> proxied.contains("POST http://localhost:9/hooks"));
          });
      runner().withPropertyValues("herald.http.enabled=false")
          .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(dev.herald.channel.http.HttpChannel.class));
      runner().withPropertyValues("herald.http.proxy=socks://proxy:1080")
          .run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.http.proxy");
          });
    } finally {
      proxy.stop(0);
    }
  }
}
