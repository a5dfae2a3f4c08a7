package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeContext;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Events from Spring: {@code NoticePublisher.publishEvent} and {@code @NoticeEvent(eventType = ...)}
 * write the event and one notice per subscribed endpoint in the current transaction, or nothing.
 */
@SpringBootTest(classes = EventPublishingTest.App.class, properties = {
    "herald.definitions.acme-direct.handler=acme", "herald.definitions.globex-direct.handler=globex"})
@AutoConfigureHerald
class EventPublishingTest {
  @NoticeEvent(eventType = "order.paid", idempotencyKey = "orderId")
  public record OrderPaid(long orderId, BigDecimal amount) {}

  /** Two partners, each an in-process handler standing for a receiver. */
  public static class Partners {
    final List<String> acme = new CopyOnWriteArrayList<>();
    final List<String> globex = new CopyOnWriteArrayList<>();

    @NoticeHandlerMethod("acme")
    public void acme(NoticeContext ctx) {
      acme.add(ctx.payload());
    }

    @NoticeHandlerMethod("globex")
    public void globex(NoticeContext ctx) {
      globex.add(ctx.payload());
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Partners partners() {
      return new Partners();
    }

    @Bean
    dev.herald.spring.docs.PartnerEvents partnerEvents(NoticePublisher notices, ApplicationEventPublisher events) {
      return new dev.herald.spring.docs.PartnerEvents(notices, events);
    }
  }

  @Autowired ApplicationEventPublisher events;
  @Autowired NoticePublisher notices;
  @Autowired PlatformTransactionManager transactions;
  @Autowired ManualRunner runner;
  @Autowired Herald herald;
  @Autowired Partners partners;
  @Autowired dev.herald.spring.docs.PartnerEvents readmeExample;

  @BeforeEach
  void partnersSubscribe() {
    herald.events().saveType(EventType.of("order.paid", null,
        "{\"type\": \"object\", \"required\": [\"orderId\", \"amount\"]}"));
    herald.events().saveType(EventType.of("order.refunded", null, null));
    herald.events().saveEndpoint(EventEndpoint.builder("acme").channel("local", "acme").subscribe("order.paid").build());
    herald.events().saveEndpoint(EventEndpoint.builder("globex").channel("local", "globex").subscribe("*").build());
  }

  @Test
  void anAnnotatedEventPublishedInATransactionReachesEverySubscribedEndpointAfterTheCommit() {
    new TransactionTemplate(transactions).executeWithoutResult(tx -> events.publishEvent(new OrderPaid(1, BigDecimal.TEN)));
    runner.runDue();
    assertThat(partners.acme).containsOnlyOnce("{\"orderId\":1,\"amount\":10}");
    assertThat(partners.globex).containsOnlyOnce("{\"orderId\":1,\"amount\":10}");
    assertThat(herald.events().findByKey(null, "1").orElseThrow().taken()).isEqualTo(2);
  }

  @Test
  void theReadmeExamplePublishesBothWays() {
    assertThat(readmeExample.paid(10, BigDecimal.ONE).deliveries()).extracting(d -> d.endpointId())
        .containsExactly("acme", "globex");
    readmeExample.refunded(10, BigDecimal.ONE);
    runner.runDue();
    assertThat(partners.acme).containsOnlyOnce("{\"orderId\":10,\"amount\":1}");
    assertThat(partners.globex).as("subscribed to every type: paid and refunded")
        .filteredOn("{\"orderId\":10,\"amount\":1}"::equals).hasSize(2);
    assertThat(herald.events().findByKey(null, "10").orElseThrow().event().type()).isEqualTo("order.refunded");
  }

  @Test
  void aRolledBackTransactionPublishesNoEvent() {
    assertThatThrownBy(() -> new TransactionTemplate(transactions).executeWithoutResult(tx -> {
      notices.publishEvent("order.paid", new OrderPaid(2, BigDecimal.ONE));
      throw new IllegalStateException("payment declined");
    })).hasMessage("payment declined");
    runner.runDue();
    assertThat(partners.acme).noneMatch(p -> p.contains("\"orderId\":2"));
    assertThat(herald.events().list(null, null, null, null, 0, 100).items())
        .noneMatch(e -> e.event().payload().contains("\"orderId\":2"));
  }

  @Test
  void outsideATransactionPublishingIsRefusedAndTheSchemaIsCheckedInside() {
    assertThatThrownBy(() -> notices.publishEvent(notices.eventRequest("order.paid", new OrderPaid(3, BigDecimal.ONE))
        .idempotencyKey("order-3")))
        .isInstanceOf(NoTransactionException.class).hasMessageContaining("event type 'order.paid'")
        .hasMessageContaining(NoTransactionException.PROPERTY);
    assertThat(herald.events().findByKey(null, "order-3")).as("nothing written").isEmpty();
    assertThatThrownBy(() -> new TransactionTemplate(transactions).executeWithoutResult(tx ->
        notices.publishEvent("order.paid", "{\"orderId\": 4}")))
        .isInstanceOfSatisfying(InvalidInputException.class, x -> assertThat(x.field()).isEqualTo("payload.amount"));
    PublishedEvent e = new TransactionTemplate(transactions).execute(tx -> notices.publishEvent(
        notices.eventRequest("order.paid", new OrderPaid(3, BigDecimal.ONE)).idempotencyKey("order-3")));
    assertThat(e.deliveries()).hasSize(2);
    runner.runDue();
    assertThat(partners.globex).contains("{\"orderId\":3,\"amount\":1}");
  }
}
