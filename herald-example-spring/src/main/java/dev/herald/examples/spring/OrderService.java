package dev.herald.examples.spring;

import dev.herald.spring.NoticeHandle;
import dev.herald.spring.NoticePublisher;
import java.math.BigDecimal;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The main flow. It never waits for, or fails because of, the marketing platform. */
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final NoticePublisher notices;

  public OrderService(JdbcTemplate jdbc, NoticePublisher notices) {
    this.jdbc = jdbc;
    this.notices = notices;
  }

  /**
   * Marks the order paid and tells the marketing platform, in one transaction: the notice is written
   * with the transaction's own connection, so it exists if and only if the payment commits.
   *
   * @throws PaymentDeclinedException after writing both, to show that a rollback takes the notice with it
   */
  @Transactional
  public NoticeHandle pay(long orderId, BigDecimal amount) {
    int updated = jdbc.update("UPDATE shop_order SET status = 'PAID', amount = ? WHERE id = ? AND status = 'NEW'",
        amount, orderId);
    if (updated != 1) {
      throw new IllegalStateException("order " + orderId + " is not waiting for payment");
    }
    String customer = jdbc.queryForObject("SELECT customer FROM shop_order WHERE id = ?", String.class, orderId);
    NoticeHandle notice = notices.publish("order-paid", new OrderPaid(orderId, customer, amount));
    if (amount.signum() <= 0) {
      throw new PaymentDeclinedException(orderId);
    }
    return notice;
  }

  public String statusOf(long orderId) {
    return jdbc.queryForObject("SELECT status FROM shop_order WHERE id = ?", String.class, orderId);
  }

  /** A business failure after the notice was written: the whole transaction rolls back. */
  public static class PaymentDeclinedException extends RuntimeException {
    public PaymentDeclinedException(long orderId) {
      super("payment of order " + orderId + " declined");
    }
  }
}
