package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.DeliveryResult;
import dev.herald.NoticeDefinition;
import java.nio.file.Path;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;
import org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Misconfiguration fails start-up with a message naming the property or bean at fault, and why. */
class StartupFailureTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.publisher.require-transaction=false");
  }

  /** Asserts start-up failed with a Herald configuration error, and its analysis, mentioning every text. */
  private static ContextConsumer<AssertableApplicationContext> failsWith(String... texts) {
    return ctx -> {
      assertThat(ctx).hasFailed();
      Throwable failure = ctx.getStartupFailure();
      FailureAnalysis analysis = new HeraldFailureAnalyzer().analyze(failure);
      assertThat(analysis).as("analyzed: " + failure).isNotNull();
      assertThat(analysis.getDescription()).contains(texts);
      assertThat(analysis.getAction()).isNotBlank();
    };
  }

  @Configuration(proxyBeanMethods = false)
  static class WithInbox {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  @Test
  void anOrderingThatIsNotOneOfTheKnownOnes() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.events.handler=inbox", "herald.definitions.events.ordering=sometimes")
        .run(failsWith("herald.definitions.events.ordering", "none, wait, skip"));
  }

  @Test
  void anOrderingFromPropertiesOrdersTheDefinition() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.events.handler=inbox", "herald.definitions.events.ordering=skip")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean(dev.herald.Herald.class).definitions().find("events").orElseThrow().ordering())
              .isEqualTo(dev.herald.Ordering.SKIP);
        });
  }

  @Test
  void definitionWhoseHandlerNoBeanProvides() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.inboxed.handler=inbox", "herald.definitions.orders.handler=ghost")
        .run(failsWith("herald.definitions.orders.handler", "handler 'ghost'", "no bean provides it", "[inbox]"));
  }

  @Test
  void definitionWithoutAHandlerIsAcceptedWhenVerificationIsOff() {
    runner().withPropertyValues("herald.definitions.orders.handler=ghost", "herald.verify-handlers=false")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  @Test
  void handlerThatNoDefinitionTargets() {
    runner().withUserConfiguration(WithInbox.class)
        .run(failsWith("bean 'inbox' method dev.herald.spring.Inbox#take(NoticeContext)",
            "handler 'inbox' is not the target of any definition"));
  }

  public static class WrongReturn {
    @NoticeHandlerMethod("wrong")
    public String handle(String payload) {
      return payload;
    }
  }

  @Test
  void handlerMethodWithAWrongReturnType() {
    runner().withBean("wrongReturn", WrongReturn.class).withPropertyValues("herald.definitions.w.handler=wrong")
        .run(failsWith("bean 'wrongReturn' method " + WrongReturn.class.getName() + "#handle(String)",
            "returns void, boolean or DeliveryResult, not String"));
  }

  public static class TwoPayloads {
    @NoticeHandlerMethod("two")
    public void handle(String payload, Integer other) {}
  }

  @Test
  void handlerMethodWithTwoPayloadParameters() {
    runner().withBean("twoPayloads", TwoPayloads.class).withPropertyValues("herald.definitions.t.handler=two")
        .run(failsWith("bean 'twoPayloads'", "at most one payload parameter"));
  }

  public static class NotPublic {
    @NoticeHandlerMethod("hidden")
    void handle(String payload) {}
  }

  @Test
  void handlerMethodThatIsNotPublic() {
    runner().withBean("notPublic", NotPublic.class).withPropertyValues("herald.definitions.h.handler=hidden")
        .run(failsWith("bean 'notPublic'", "must be public"));
  }

  public static class AlsoInbox {
    @NoticeHandlerMethod("inbox")
    public DeliveryResult handle() {
      return DeliveryResult.delivered();
    }
  }

  @Test
  void twoHandlersOfOneName() {
    runner().withUserConfiguration(WithInbox.class).withBean("alsoInbox", AlsoInbox.class)
        .withPropertyValues("herald.definitions.i.handler=inbox")
        .run(failsWith("bean 'alsoInbox'", "bean 'inbox'", "handler 'inbox' is already provided by"));
  }

  @HeraldHandler("not-a-handler")
  public static class NotAHandler {}

  @Test
  void heraldHandlerOnABeanThatIsNoNoticeHandler() {
    runner().withBean("notAHandler", NotAHandler.class).withPropertyValues("herald.definitions.n.handler=not-a-handler")
        .run(failsWith("bean 'notAHandler'", "must implement dev.herald.NoticeHandler"));
  }

  @Test
  void badRetrySchedule() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.x.handler=inbox", "herald.definitions.x.retry=5 parsecs")
        .run(failsWith("herald.definitions.x.retry", "5 parsecs"));
  }

  @Test
  void badAlertPolicy() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.x.handler=inbox", "herald.definitions.x.alert=sometimes")
        .run(failsWith("herald.definitions.x.alert", "sometimes"));
  }

  @Test
  void badMaxAttempts() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.x.handler=inbox", "herald.definitions.x.max-attempts=0")
        .run(failsWith("herald.definitions.x.max-attempts", "must be >= 1, or -1"));
  }

  @Test
  void definitionThatSaysNowhereToDeliver() {
    runner().withPropertyValues("herald.definitions.x.description=lost")
        .run(failsWith("herald.definitions.x", "says nowhere to deliver"));
  }

  @Test
  void definitionWithHandlerAndChannel() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.x.handler=inbox", "herald.definitions.x.channel=http")
        .run(failsWith("herald.definitions.x.handler", "not both"));
  }

  @Test
  void definitionOnAnUnknownChannel() {
    runner().withPropertyValues("herald.definitions.x.channel=kafka", "herald.definitions.x.target=orders")
        .run(failsWith("herald.definitions.x.channel", "no channel named 'kafka'"));
  }

  @Test
  void anUnknownWebhookOptionNamesTheDefinitionAndItsProperty() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldChannelsAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.definitions.order-paid.channel=http",
            "herald.definitions.order-paid.target=https://shop.example/hooks",
            "herald.definitions.order-paid.options.expectd-body=success")
        .run(failsWith("herald.definitions.order-paid.options[expectd-body]", "definition 'order-paid'",
            "unknown option of channel http; did you mean 'expected-body'?"));
  }

  /** A customizer may add channels, so the starter leaves the check to the core: still named. */
  @Test
  void anUnknownChannelIsNamedAlsoBesideACustomizer() {
    runner().withBean(HeraldCustomizer.class, () -> builder -> { })
        .withPropertyValues("herald.definitions.x.channel=kafka", "herald.definitions.x.target=orders")
        .run(failsWith("herald.definitions.x.channel", "definition 'x'", "no channel named 'kafka'"));
  }

  @Configuration(proxyBeanMethods = false)
  static class DuplicateDefinition {
    @Bean
    NoticeDefinition inboxDefinition() {
      return NoticeDefinition.builder("x").handler("inbox").build();
    }
  }

  @Test
  void definitionDeclaredInPropertiesAndAsABean() {
    runner().withUserConfiguration(WithInbox.class, DuplicateDefinition.class)
        .withPropertyValues("herald.definitions.x.handler=inbox")
        .run(failsWith("NoticeDefinition bean 'inboxDefinition'", "also declared by herald.definitions.x"));
  }

  @Test
  void badEngineSetting() {
    runner().withPropertyValues("herald.node-timeout=100ms")
        .run(failsWith("herald.node-timeout", "at least 200 ms"));
  }

  @Test
  void aSettingsErrorNamesPropertiesAndDurationsAsPropertiesWriteThem() {
    runner().withPropertyValues("herald.poll-interval=0s")
        .run(failsWith("herald.poll-interval: must be a positive duration, was 0s"));
    runner().withPropertyValues("herald.circuit-slow-call-rate=1.5")
        .run(failsWith("herald.circuit-slow-call-rate: must be above 0 and at most 1, was 1.5"));
    runner().withPropertyValues("herald.definitions.x.handler=inbox", "herald.definitions.x.confirm-timeout=4000d")
        .run(failsWith("herald.definitions.x.confirm-timeout: must be positive and at most 3650 days, was 4000d"));
  }

  @Test
  void anUnknownDefinitionListsTheKnownOnes() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.orders.handler=inbox", "herald.definitions.refunds.handler=inbox")
        .run(ctx -> assertThatThrownBy(() -> ctx.getBean(NoticePublisher.class).publish("oders", "{}"))
            .isInstanceOf(dev.herald.UnknownDefinitionException.class)
            .hasMessage("definition: no definition named 'oders'; definitions: [orders, refunds]"));
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class BrokenApp {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  /** The whole way, as a user sees it: Spring Boot's failure report carries Herald's analysis. */
  @Test
  void springBootReportsTheAnalysis() {
    // listen to the reporter's log (no console capture: the build redirects test output to files)
    Logger reporter = (Logger) LoggerFactory.getLogger(LoggingFailureAnalysisReporter.class);
    ListAppender<ILoggingEvent> report = new ListAppender<>();
    report.start();
    SpringApplicationBuilder app = new SpringApplicationBuilder(BrokenApp.class).web(WebApplicationType.NONE)
        .listeners(event -> {
          if (event instanceof ApplicationPreparedEvent) { // logging is set up by now
            reporter.addAppender(report);
          }
        })
        .properties("spring.datasource.url=jdbc:h2:file:" + dir.resolve("broken") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.definitions.orders.handler=missing-handler");
    try {
      assertThatThrownBy(app::run).hasRootCauseInstanceOf(HeraldConfigurationException.class);
    } finally {
      reporter.detachAppender(report);
    }
    assertThat(report.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString().contains("APPLICATION FAILED TO START", "Herald could not start.",
        "herald.definitions.orders.handler", "@NoticeHandlerMethod(\"missing-handler\")");
  }

  @Test
  void customizerThatRegistersASecondHandlerOfAName() {
    runner().withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.definitions.i.handler=inbox")
        .withBean(HeraldCustomizer.class, () -> b -> b.handler("inbox", ctx -> DeliveryResult.delivered()))
        .run(failsWith("HeraldCustomizer " + StartupFailureTest.class.getName(), "two handlers named 'inbox'"));
  }

  @Test
  void badShard() {
    runner().withPropertyValues("herald.only-shards=-1")
        .run(failsWith("herald.only-shards", "shard -1 is outside"));
  }

  @Test
  void h2FileBesideTheApplicationsDataSource() {
    runner().withPropertyValues("herald.h2-file=" + dir.resolve("h2"))
        .run(failsWith("herald.h2-file", "the application has a DataSource"));
  }
}
