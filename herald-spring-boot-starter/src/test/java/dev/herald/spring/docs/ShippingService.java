package dev.herald.spring.docs;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// tag::shipping-service[]
@Service
public class ShippingService {
  private final ApplicationEventPublisher events;

  public ShippingService(ApplicationEventPublisher events) {
    this.events = events;
  }

  @Transactional
  public void ship(long orderId, String tracking) {
    // ... the business writes, in this transaction ...
    events.publishEvent(new OrderShipped(orderId, tracking)); // a notice in this transaction
  }
}
// end::shipping-service[]
