package dev.herald.spring.docs;

import dev.herald.spring.NoticeHandlerMethod;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

// tag::customer-notifier[]
@Component
public class CustomerNotifier {
  private final List<OrderShipped> sent = new CopyOnWriteArrayList<>();

  // the handler, and the definition it delivers: herald.definitions.order-shipped.* properties override it
  @NoticeHandlerMethod(value = "customer-notifier", definition = "order-shipped",
      retry = "10s, 1m, 10m", maxAttempts = 5, alert = "final-failure")
  public void shipped(OrderShipped event) {
    sent.add(event); // e-mail the customer here; an exception is a failed attempt, retried
  }

  public List<OrderShipped> sent() {
    return sent;
  }
}
// end::customer-notifier[]
