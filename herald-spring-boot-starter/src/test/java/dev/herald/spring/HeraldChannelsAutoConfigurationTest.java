package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.herald.Herald;
import dev.herald.channel.amqp.AmqpChannel;
import dev.herald.channel.http.HttpChannel;
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

/** The http, mail, AMQP and Kafka channels: configured from properties when their module is present. */
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

  /** A Spring developer's webhooks from properties alone: no HttpChannel bean written by hand. */
  @Test
  void aWebhookDefinitionInPropertiesIsPostedThroughTheAutoConfiguredHttpChannel() throws Exception {
    java.util.List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hooks", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    receiver.start();
    try {
      runner().withPropertyValues(
              "herald.http.allow=127.0.0.1",
              "herald.http.default-timeout=3s",
              "herald.definitions.order-paid.channel=http",
              "herald.definitions.order-paid.target=http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks")
          .run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(HttpChannel.class);
            ctx.getBean(Herald.class).enqueue("order-paid", "{\"order\":42}");
            await().atMost(Duration.ofSeconds(10)).until(() -> bodies.contains("{\"order\":42}"));
          });
    } finally {
      receiver.stop(0);
    }
  }

  /** A channel without a target: each notice gives its own URL, and one that gives none is refused. */
  @Test
  void aWebhookDefinitionWithoutTargetTakesEachNoticesOwn() throws Exception {
    java.util.List<String> paths = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/", exchange -> {
      paths.add(exchange.getRequestURI().getPath());
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    receiver.start();
    try {
      runner().withPropertyValues("herald.http.allow=127.0.0.1", "herald.definitions.callback.channel=http")
          .run(ctx -> {
            assertThat(ctx).hasNotFailed();
            Herald herald = ctx.getBean(Herald.class);
            assertThat(herald.definitions().find("callback").orElseThrow().perNoticeTarget()).isTrue();
            assertThatThrownBy(() -> herald.enqueue("callback", "{}"))
                .isInstanceOf(dev.herald.InvalidInputException.class).hasMessageContaining("target");
            String base = "http://127.0.0.1:" + receiver.getAddress().getPort();
            herald.enqueue(dev.herald.NoticeRequest.of("callback", "{}").target(base + "/merchant-a"));
            herald.enqueue(dev.herald.NoticeRequest.of("callback", "{}").target(base + "/merchant-b"));
            await().atMost(Duration.ofSeconds(10))
                .until(() -> paths.containsAll(java.util.List.of("/merchant-a", "/merchant-b")));
          });
    } finally {
      receiver.stop(0);
    }
    runner().withPropertyValues("herald.definitions.report.channel=mail", "herald.mail.host=127.0.0.1")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.definitions.report.target")
              .hasStackTraceContaining("is required");
        });
  }

  @Test
  void theHttpChannelRefusesPrivateTargetsUnlessAllowedAndCanBeTurnedOff() {
    runner().withPropertyValues("herald.definitions.hook.channel=http",
            "herald.definitions.hook.target=http://10.1.2.3/hook")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.definitions.hook.target")
              .hasStackTraceContaining("definition 'hook'");
        });
    runner().withPropertyValues("herald.http.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(HttpChannel.class));
    runner().withPropertyValues("herald.http.max-rate-per-endpoint=fast")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.http.max-rate-per-endpoint");
        });
  }

  /** A health component per channel: a mail server that cannot be reached turns its channel's DOWN. */
  @Test
  void eachChannelHasAHealthComponentThatGoesDownWhenItsServerStaysUnreachable() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    runner().withPropertyValues("herald.mail.host=127.0.0.1", "herald.mail.port=" + closed,
            "herald.mail.from=noreply@shop.example", "herald.health.channel-down-after=200ms")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          var channels = ctx.getBean("heraldChannelsHealthContributor",
              org.springframework.boot.health.contributor.CompositeHealthContributor.class);
          var mail = (org.springframework.boot.health.contributor.HealthIndicator) channels.getContributor("mail");
          var http = (org.springframework.boot.health.contributor.HealthIndicator) channels.getContributor("http");
          assertThat(http.health().getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.UP);
          await().atMost(Duration.ofSeconds(10)).until(() ->
              mail.health().getStatus().equals(org.springframework.boot.health.contributor.Status.DOWN));
          var health = mail.health();
          assertThat(health.getDetails().get("exceeded").toString())
              .contains("mail server '127.0.0.1:" + closed + "' down for", "herald.health.channel-down-after");
          assertThat(health.getDetails().get("peers").toString()).contains("state=DOWN", "lastError=");
        });
  }

  /** Intake from properties: built and started once Herald runs; one that says nothing of its format is refused. */
  @Test
  void intakesComeFromTheirPropertiesAndABadOneNamesItsProperty() {
    ApplicationContextRunner intakes = runner().withConfiguration(AutoConfigurations.of(HeraldIntakeAutoConfiguration.class));
    intakes.withPropertyValues("herald.kafka.bootstrap-servers=127.0.0.1:9",
            "herald.kafka.intakes.audit.topic=orders.audit", "herald.kafka.intakes.audit.format=envelope")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          HeraldIntakes all = ctx.getBean("heraldKafkaIntakes", HeraldIntakes.class);
          assertThat(all.intakes()).extracting(HeraldIntakes.Intake::name).containsExactly("kafka-audit");
          await().atMost(Duration.ofSeconds(10)).until(() -> all.intakes().getFirst().consuming());
        });
    intakes.withPropertyValues("herald.amqp.intakes.payments.uri=amqp://127.0.0.1:9/",
            "herald.amqp.intakes.payments.queue=payment-notices")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.amqp.intakes.payments.definition")
              .hasStackTraceContaining("says nothing of what a message becomes");
        });
    intakes.withPropertyValues("herald.amqp.intakes.payments.broker=main",
            "herald.amqp.intakes.payments.queue=payment-notices", "herald.amqp.intakes.payments.definition=x")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.amqp.intakes.payments.broker")
              .hasStackTraceContaining("not one of herald.amqp.brokers");
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
    runner().withClassLoader(new FilteredClassLoader(HttpChannel.class))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(HttpChannel.class));
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
