package dev.herald.examples.spring;

import dev.herald.Notice;
import dev.herald.NoticeNotFoundException;
import dev.herald.spring.NoticeHandle;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.CommandLineRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Pays a few orders (one is declined and rolls back), waits for the notices, prints the outcome. */
@Component
public class PlaceOrders implements CommandLineRunner {
  private final OrderService orders;
  private final MarketingPlatform marketing;
  private final JdbcTemplate jdbc;

  public PlaceOrders(OrderService orders, MarketingPlatform marketing, JdbcTemplate jdbc) {
    this.orders = orders;
    this.marketing = marketing;
    this.jdbc = jdbc;
  }

  @Override
  public void run(String... args) throws InterruptedException {
    // a fresh set of orders waiting for payment, every run
    jdbc.update("DELETE FROM shop_order");
    jdbc.update("INSERT INTO shop_order (id, customer, status) VALUES (1, 'ann', 'NEW'), (2, 'bob', 'NEW'),"
        + " (3, 'cai', 'NEW'), (4, 'dee', 'NEW')");

    List<NoticeHandle> sent = new ArrayList<>();
    for (long id : new long[] {1, 2, 3, 4}) {
      BigDecimal amount = id == 3 ? BigDecimal.ZERO : BigDecimal.valueOf(10 * id).setScale(2);
      try {
        NoticeHandle notice = orders.pay(id, amount);
        sent.add(notice);
        // document 000: right after the service call, the caller can see the notice's status
        System.out.printf("paid order %d -> notice %s is %s%n", id, notice.id(), notice.current().status());
      } catch (OrderService.PaymentDeclinedException e) {
        System.out.printf("order %d: %s -> rolled back, order is %s, no notice%n", id, e.getMessage(),
            orders.statusOf(id));
      }
    }

    System.out.println();
    for (NoticeHandle notice : sent) {
      Notice done = awaitFinished(notice, Duration.ofSeconds(20));
      System.out.printf("notice %s: %s after %d attempt(s)%s%n", notice.id(), done.status(), done.attempts(),
          done.description() == null ? "" : " (" + done.description() + ")");
    }
    System.out.println();
    System.out.println("the marketing platform received, each once:");
    marketing.received().forEach(r -> System.out.println("  " + r));
  }

  private static Notice awaitFinished(NoticeHandle notice, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Notice now = notice.current();
    while (!now.status().isFinished() && System.nanoTime() < deadline) {
      Thread.sleep(100);
      try {
        now = notice.current();
      } catch (NoticeNotFoundException e) {
        throw new IllegalStateException("a committed notice disappeared: " + notice.id(), e);
      }
    }
    return now;
  }
}
