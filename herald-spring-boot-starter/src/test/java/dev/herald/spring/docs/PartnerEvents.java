package dev.herald.spring.docs;

import dev.herald.events.PublishedEvent;
import dev.herald.spring.NoticeEvent;
import dev.herald.spring.NoticePublisher;
import java.math.BigDecimal;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The starter README's events example: an order's event reaches every partner subscribed to it. */
// tag::partner-events[]
@Service
public class PartnerEvents {
  @NoticeEvent(eventType = "order.refunded", idempotencyKey = "orderId")
  public record OrderRefunded(long orderId, BigDecimal amount) {}

  private final NoticePublisher notices;
  private final ApplicationEventPublisher events;

  public PartnerEvents(NoticePublisher notices, ApplicationEventPublisher events) {
    this.notices = notices;
    this.events = events;
  }

  @Transactional
  public PublishedEvent paid(long orderId, BigDecimal amount) {
    // one notice per endpoint subscribed to order.paid, in this transaction: all of them or none
    return notices.publishEvent(notices.eventRequest("order.paid", new OrderPaid(orderId, amount))
        .idempotencyKey("order-" + orderId + "-paid"));
  }

  @Transactional
  public void refunded(long orderId, BigDecimal amount) {
    events.publishEvent(new OrderRefunded(orderId, amount)); // @NoticeEvent(eventType = ...): the same, no Herald call
  }
}
// end::partner-events[]
