package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeQuery;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Application events marked @NoticeEvent become notices in the publishing transaction. */
class NoticeEventsTest {
  @NoticeEvent(value = "order-paid", idempotencyKey = "orderId")
  public record OrderPaid(long orderId, BigDecimal amount) {}

  @NoticeEvent(value = "order-shipped", payload = "parcel")
  public record OrderShipped(long orderId, Parcel parcel) {}

  public record Parcel(String carrier, String tracking) {}

  @NoticeEvent(value = "order-paid", payload = "nothing")
  public record Broken(long orderId) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  @Nested
  @SpringBootTest(classes = App.class, properties = {
      "herald.definitions.order-paid.handler=inbox", "herald.definitions.order-shipped.handler=inbox"})
  @AutoConfigureHerald
  class DrivenByTheTest {
    @Autowired ApplicationEventPublisher events;
    @Autowired PlatformTransactionManager transactions;
    @Autowired ManualRunner runner;
    @Autowired Herald herald;
    @Autowired Inbox inbox;

    @Test
    void anEventPublishedInACommittedTransactionIsDeliveredAsANotice() {
      new TransactionTemplate(transactions).executeWithoutResult(tx -> events.publishEvent(new OrderPaid(1, new BigDecimal("9.90"))));
      runner.runDue();
      assertThat(inbox.received).contains("{\"orderId\":1,\"amount\":9.90}");
      assertThat(herald.operations().query(NoticeQuery.all().definition("order-paid")).items())
          .anySatisfy(n -> assertThat(n.idempotencyKey()).isEqualTo("1"));
    }

    @Test
    void anEventPublishedInARolledBackTransactionNeverBecomesANotice() {
      assertThatThrownBy(() -> new TransactionTemplate(transactions).executeWithoutResult(tx -> {
        events.publishEvent(new OrderPaid(2, BigDecimal.ONE));
        throw new IllegalStateException("payment declined");
      })).hasMessage("payment declined");
      runner.advanceAndRun(Duration.ofMinutes(1));
      assertThat(inbox.received).noneMatch(p -> p.contains("\"orderId\":2"));
      assertThat(herald.operations().query(NoticeQuery.all().definition("order-paid")).items())
          .noneMatch(n -> n.payload().contains("\"orderId\":2"));
    }

    @Test
    void thePayloadCanBeOneOfTheEventsProperties() {
      new TransactionTemplate(transactions).executeWithoutResult(
          tx -> events.publishEvent(new OrderShipped(3, new Parcel("post", "RR123"))));
      runner.runDue();
      assertThat(inbox.received).contains("{\"carrier\":\"post\",\"tracking\":\"RR123\"}");
    }

    @Test
    void aMappingToAPropertyThatDoesNotExistIsRefusedNamingIt() {
      assertThatThrownBy(() -> events.publishEvent(new Broken(4))).isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("@NoticeEvent.payload on " + Broken.class.getName())
          .hasMessageContaining("no public property 'nothing'");
    }

    @Test
    void otherEventsAreLeftAlone() {
      events.publishEvent("just a string");
      events.publishEvent(new Parcel("post", "RR9"));
      assertThat(runner.runDue()).isZero();
    }
  }

  @TempDir Path dir;

  @Test
  void onARunningApplicationTheNoticeIsDeliveredRightAfterTheCommit() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            JacksonAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withBean(Inbox.class)
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.poll-interval=30s", "herald.definitions.order-paid.handler=inbox")
        .run(ctx -> {
          Inbox inbox = ctx.getBean(Inbox.class);
          new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class)).executeWithoutResult(tx -> {
            ctx.publishEvent(new OrderPaid(5, BigDecimal.TEN));
            assertThat(inbox.received).as("not before the commit").isEmpty();
          });
          // the poll interval is 30 s: a delivery within seconds is the after-commit one
          await().atMost(Duration.ofSeconds(10)).until(() -> inbox.count("\"orderId\":5") == 1);
        });
  }
}
