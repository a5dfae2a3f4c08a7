package dev.herald.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.NoticeStatus;
import dev.herald.spring.NoticeHandle;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The README's test: a Spring Boot test that drives Herald step by step. */
// tag::test[]
@SpringBootTest(properties = {
    "herald.definitions.order-paid.handler=marketing-platform",
    "herald.definitions.order-paid.retry=5s"})
@AutoConfigureHerald // Herald is not started: the test runs what is due, on a clock it moves
class OrderPaidNoticeTest {
  @Autowired OrderService orders;
  @Autowired MarketingPlatform marketing;
  @Autowired ManualRunner herald;

  @Test
  void aPaidOrderReachesTheMarketingPlatformAndABusyOneIsRetried() {
    marketing.failNext(1);
    NoticeHandle notice = orders.pay(42, new BigDecimal("9.90"));
    assertThat(marketing.received()).isEmpty(); // nothing is delivered until the test runs it

    herald.runDue(); // the first attempt fails
    assertThat(notice.current().status()).isEqualTo(NoticeStatus.FAILED);

    herald.advanceAndRun(Duration.ofSeconds(5)); // the retry, 5 s later on Herald's clock
    assertThat(notice.current().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(marketing.received()).contains(new OrderPaid(42, new BigDecimal("9.90")));
  }

  @Test
  void aRolledBackPaymentIsNeverDelivered() {
    assertThatThrownBy(() -> orders.pay(43, BigDecimal.ZERO)).isInstanceOf(IllegalArgumentException.class);
    herald.advanceAndRun(Duration.ofMinutes(1));
    assertThat(marketing.received()).noneMatch(paid -> paid.orderId() == 43);
  }
}
// end::test[]
