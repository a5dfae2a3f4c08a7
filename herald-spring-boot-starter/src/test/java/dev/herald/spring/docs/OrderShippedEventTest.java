package dev.herald.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The README's event example: no Herald call in the shipping service, a definition on its handler. */
@SpringBootTest(properties = {
    "herald.definitions.order-paid.handler=marketing-platform",
    "herald.definitions.order-shipped.max-attempts=8"})
@AutoConfigureHerald
class OrderShippedEventTest {
  @Autowired ShippingService shipping;
  @Autowired CustomerNotifier customers;
  @Autowired ManualRunner runner;
  @Autowired Herald herald;

  @Test
  void aShippedOrderEventBecomesANoticeForTheCustomerNotifier() {
    shipping.ship(7, "RR123");
    runner.runDue();
    assertThat(customers.sent()).contains(new OrderShipped(7, "RR123"));
  }

  @Test
  void theDefinitionComesFromTheHandlerWithPropertiesOverridingIt() {
    NoticeDefinition d = herald.definitions().find("order-shipped").orElseThrow();
    assertThat(d.target()).isEqualTo("customer-notifier");
    assertThat(d.retrySchedule().toString()).isEqualTo(dev.herald.schedule.RetrySchedule.parse("10s, 1m, 10m").toString());
    assertThat(d.maxAttempts()).as("the property wins").isEqualTo(8);
  }
}
