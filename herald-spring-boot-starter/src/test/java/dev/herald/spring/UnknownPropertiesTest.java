package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A typo under herald.* fails start-up, naming the key and the closest known one. */
class UnknownPropertiesTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldAutoConfiguration.class))
        .withUserConfiguration(WithInbox.class)
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.definitions.order-placed.handler=inbox");
  }

  @Configuration(proxyBeanMethods = false)
  static class WithInbox {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  private static String failure(org.springframework.boot.test.context.assertj.AssertableApplicationContext ctx) {
    assertThat(ctx).hasFailed();
    FailureAnalysis analysis = new HeraldFailureAnalyzer().analyze(ctx.getStartupFailure());
    assertThat(analysis).as("analyzed: " + ctx.getStartupFailure()).isNotNull();
    assertThat(analysis.getAction()).contains("herald.fail-on-unknown-properties=false");
    return analysis.getDescription();
  }

  @Test
  void aTypoInAnEngineSetting() {
    runner().withPropertyValues("herald.pol-interval=2s").run(ctx -> assertThat(failure(ctx))
        .contains("herald.pol-interval: no such property; did you mean herald.poll-interval?"));
  }

  @Test
  void aTypoInADefinitionSetting() {
    runner().withPropertyValues("herald.definitions.order-placed.chanel=http").run(ctx -> assertThat(failure(ctx))
        .contains("herald.definitions.order-placed.chanel: no such property;"
            + " did you mean herald.definitions.order-placed.channel?"));
    runner().withPropertyValues("herald.definitions.order-placed.hanlder=inbox").run(ctx -> assertThat(failure(ctx))
        .contains("did you mean herald.definitions.order-placed.handler?"));
  }

  @Test
  void aTypoInANestedSetting() {
    runner().withPropertyValues("herald.definitions[order.paid].handler=inbox",
        "herald.definitions[order.paid].max-atempts=3").run(ctx -> assertThat(failure(ctx))
        .contains("did you mean herald.definitions[order.paid].max-attempts?"));
  }

  @Test
  void aTypoInAHealthThreshold() {
    runner().withPropertyValues("herald.health.max-bcklog=10").run(ctx -> assertThat(failure(ctx))
        .contains("herald.health.max-bcklog: no such property; did you mean herald.health.max-backlog?"));
  }

  @Test
  void aTypoInAChannelModulesSetting() {
    runner().withPropertyValues("herald.http.alow=10.0.0.5").run(ctx -> assertThat(failure(ctx))
        .contains("herald.http.alow: no such property; did you mean herald.http.allow?"));
    runner().withPropertyValues("herald.mail.hots=smtp.example").run(ctx -> assertThat(failure(ctx))
        .contains("did you mean herald.mail.host?"));
    runner().withPropertyValues("herald.amqp.intakes.orders.queue=orders", "herald.amqp.intakes.orders.prefech=5")
        .run(ctx -> assertThat(failure(ctx)).contains("did you mean herald.amqp.intakes.orders.prefetch?"));
    runner().withPropertyValues("herald.kafka.bootstrap-server=localhost:9092").run(ctx -> assertThat(failure(ctx))
        .contains("did you mean herald.kafka.bootstrap-servers?"));
  }

  @Test
  void theChannelModulesKeysAreAccepted() {
    runner().withPropertyValues("herald.http.allow[0]=10.0.0.5", "herald.http.allow-private-networks=true",
            "herald.http.max-rate-per-endpoint=10/s", "herald.amqp.brokers.main=amqp://localhost",
            "herald.amqp.intakes.orders.queue=orders", "herald.kafka.properties.linger.ms=5",
            "herald.kafka.intakes.events.properties.max.poll.records=10")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  @Test
  void everyFormOfAKnownKeyIsAccepted() {
    runner().withPropertyValues("herald.pollInterval=2s", "herald.max_held=100", "herald.only-definitions[0]=order-placed",
            "herald.definitions.order-placed.options.retry-on=java.io.IOException", "herald.definitions.order-placed.maxAttempts=3",
            "herald.health.max-dead=5", "herald.health.status=DEGRADED")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  @ConfigurationProperties("herald.server")
  public static class ServerLikeProperties {
    private int maxBatch;

    public int getMaxBatch() {
      return maxBatch;
    }

    public void setMaxBatch(int maxBatch) {
      this.maxBatch = maxBatch;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(ServerLikeProperties.class)
  static class WithServerProperties {}

  @Test
  void keysOfAnotherPropertiesBeanUnderHeraldAreLeftToIt() {
    runner().withUserConfiguration(WithServerProperties.class)
        .withPropertyValues("herald.server.max-batch=10", "herald.server.whatever=1")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    runner().withPropertyValues("herald.server.max-batch=10").run(ctx -> assertThat(failure(ctx))
        .contains("herald.server.max-batch: no such property; did you mean one of herald.[", "poll-interval"));
  }

  @Test
  void theCheckCanBeTurnedOff() {
    runner().withPropertyValues("herald.pol-interval=2s", "herald.fail-on-unknown-properties=false")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }
}
