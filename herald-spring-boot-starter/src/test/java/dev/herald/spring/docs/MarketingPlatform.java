package dev.herald.spring.docs;

import dev.herald.NoticeContext;
import dev.herald.spring.NoticeHandlerMethod;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

@Component
public class MarketingPlatform {
  private final List<OrderPaid> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger failures = new AtomicInteger();

  // tag::handler[]
  @NoticeHandlerMethod("marketing-platform")
  public void orderPaid(OrderPaid event, NoticeContext ctx) { // the payload, read with Jackson
    if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("marketing platform busy"); // a failed attempt, retried
    }
    received.add(event);
  }
  // end::handler[]

  /** The next {@code n} attempts fail. */
  public void failNext(int n) {
    failures.set(n);
  }

  public List<OrderPaid> received() {
    return received;
  }
}
