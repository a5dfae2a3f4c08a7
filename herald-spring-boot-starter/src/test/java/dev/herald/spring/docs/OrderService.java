package dev.herald.spring.docs;

import dev.herald.spring.NoticeHandle;
import dev.herald.spring.NoticePublisher;
import java.math.BigDecimal;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// tag::order-service[]
@Service
public class OrderService {
  private final NoticePublisher notices;

  public OrderService(NoticePublisher notices) {
    this.notices = notices;
  }

  @Transactional
  public NoticeHandle pay(long orderId, BigDecimal amount) {
    if (amount.signum() <= 0) {
      throw new IllegalArgumentException("nothing to pay"); // rolls back: the notice is never delivered
    }
    return notices.publish("order-paid", new OrderPaid(orderId, amount)); // written as JSON by Jackson
  }
}
// end::order-service[]
