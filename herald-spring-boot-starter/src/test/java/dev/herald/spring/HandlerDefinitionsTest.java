package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeContext;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeHandler;
import dev.herald.schedule.RetrySchedule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A definition declared on its handler's annotation, with properties overriding it. */
class HandlerDefinitionsTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.publisher.require-transaction=false"); // standalone notices
  }

  public static class Marketing {
    final List<String> received = new CopyOnWriteArrayList<>();

    @NoticeHandlerMethod(value = "marketing-platform", definition = "order-paid", retry = "5s, 1m", maxAttempts = 3,
        alert = "after:2", confirmRequired = true, confirmTimeout = "20m", maxInterval = "1h",
        description = "tell the marketing platform")
    public void orderPaid(String payload) {
      received.add(payload);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class WithMarketing {
    @Bean
    Marketing marketing() {
      return new Marketing();
    }
  }

  @HeraldHandler(value = "ledger", definition = "ledger-entry", maxAttempts = -1)
  public static class Ledger implements NoticeHandler {
    @Override
    public DeliveryResult handle(NoticeContext ctx) {
      return DeliveryResult.delivered();
    }
  }

  @Test
  void theAnnotationDeclaresTheDefinitionAndItsHandlerDeliversIt() {
    runner().withUserConfiguration(WithMarketing.class).withBean(Ledger.class).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      NoticeDefinition d = ctx.getBean(Herald.class).definitions().find("order-paid").orElseThrow();
      assertThat(d.channel()).isEqualTo(NoticeDefinition.LOCAL_CHANNEL);
      assertThat(d.target()).isEqualTo("marketing-platform");
      assertThat(d.retrySchedule()).isEqualTo(RetrySchedule.parse("5s, 1m"));
      assertThat(d.maxAttempts()).isEqualTo(3);
      assertThat(d.alertPolicy()).isEqualTo(AlertPolicy.parse("after:2"));
      assertThat(d.confirmRequired()).isTrue();
      assertThat(d.confirmTimeout()).isEqualTo(Duration.ofMinutes(20));
      assertThat(d.maxInterval()).isEqualTo(Duration.ofHours(1));
      assertThat(d.description()).isEqualTo("tell the marketing platform");
      assertThat(ctx.getBean(Herald.class).definitions().find("ledger-entry").orElseThrow().maxAttempts())
          .isEqualTo(NoticeDefinition.UNLIMITED);

      NoticeHandle h = ctx.getBean(NoticePublisher.class).publish("order-paid", "{\"order\":1}");
      assertThat(h.awaitFirstOutcome(Duration.ofSeconds(10))).isPresent();
      assertThat(ctx.getBean(Marketing.class).received).containsExactly("{\"order\":1}");
    });
  }

  @Test
  void propertiesOverrideTheAnnotationSettingBySetting() {
    runner().withUserConfiguration(WithMarketing.class)
        .withPropertyValues("herald.definitions.order-paid.max-attempts=7", "herald.definitions.order-paid.alert=never")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          NoticeDefinition d = ctx.getBean(Herald.class).definitions().find("order-paid").orElseThrow();
          assertThat(d.maxAttempts()).isEqualTo(7);
          assertThat(d.alertPolicy()).isEqualTo(AlertPolicy.parse("never"));
          assertThat(d.retrySchedule()).as("kept from the annotation").isEqualTo(RetrySchedule.parse("5s, 1m"));
          assertThat(d.target()).isEqualTo("marketing-platform");
        });
  }

  public static class BadRetry {
    @NoticeHandlerMethod(value = "bad", definition = "bad-retry", retry = "5 parsecs")
    public void take(String payload) {}
  }

  public static class BadTimeout {
    @NoticeHandlerMethod(value = "slow", definition = "slow", confirmTimeout = "ten minutes")
    public void take(String payload) {}
  }

  public static class SameDefinition {
    @NoticeHandlerMethod(value = "again", definition = "order-paid")
    public void take(String payload) {}
  }

  public static class SettingsWithoutDefinition {
    @NoticeHandlerMethod(value = "orphan", retry = "5s")
    public void take(String payload) {}
  }

  private static String failure(AssertableApplicationContext ctx) {
    assertThat(ctx).hasFailed();
    FailureAnalysis analysis = new HeraldFailureAnalyzer().analyze(ctx.getStartupFailure());
    assertThat(analysis).as("analyzed: " + ctx.getStartupFailure()).isNotNull();
    return analysis.getDescription();
  }

  @Test
  void aBadAttributeFailsStartUpNamingTheHandler() {
    runner().withBean(BadRetry.class).run(ctx -> assertThat(failure(ctx))
        .contains("method " + BadRetry.class.getName() + "#take(String)", "definition 'bad-retry': retry:"));
    runner().withBean(BadTimeout.class).run(ctx -> assertThat(failure(ctx))
        .contains(BadTimeout.class.getName() + "#take(String)", "confirmTimeout: 'ten minutes' is not a duration"));
    runner().withBean(SettingsWithoutDefinition.class).run(ctx -> assertThat(failure(ctx))
        .contains("'retry' is set, but no definition is named"));
  }

  @Test
  void twoHandlersMayNotDeclareOneDefinition() {
    runner().withUserConfiguration(WithMarketing.class).withBean(SameDefinition.class).run(ctx -> assertThat(failure(ctx))
        .contains("definition 'order-paid' is also declared on"));
  }
}
