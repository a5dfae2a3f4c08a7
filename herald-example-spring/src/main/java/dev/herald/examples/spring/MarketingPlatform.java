package dev.herald.examples.spring;

import dev.herald.NoticeContext;
import dev.herald.spring.NoticeHandlerMethod;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The other system, as the handler that calls it. Here it logs; in production it would send a
 * RabbitMQ message or an HTTP request. It is busy at first for every second order: the exception is
 * a failed attempt, retried on the definition's schedule, and never reaches {@link OrderService}.
 * Receivers must be idempotent: Herald delivers at least once.
 */
@Component
public class MarketingPlatform {
  private static final Logger log = LoggerFactory.getLogger(MarketingPlatform.class);
  private final List<String> received = new CopyOnWriteArrayList<>();

  @NoticeHandlerMethod("marketing-platform")
  public void orderPaid(OrderPaid event, NoticeContext ctx) {
    if (event.orderId() % 2 == 0 && ctx.attempt() == 1) {
      log.info("marketing platform: busy, refusing order {} (attempt {})", event.orderId(), ctx.attempt());
      throw new IllegalStateException("marketing platform busy (HTTP 503)");
    }
    ctx.describe("synced to marketing on attempt " + ctx.attempt());
    received.add("order " + event.orderId() + " of " + event.customer() + ", " + event.amount());
    log.info("marketing platform: took order {} of {} for {} (attempt {})", event.orderId(), event.customer(),
        event.amount(), ctx.attempt());
  }

  public List<String> received() {
    return received;
  }
}
