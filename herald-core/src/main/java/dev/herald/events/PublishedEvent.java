package dev.herald.events;

import java.util.List;

/**
 * An event and its deliveries, one per endpoint it went to.
 *
 * @param created false when the idempotency key was known: the event is the one published before, and
 *     nothing was written
 */
public record PublishedEvent(Event event, List<EventDelivery> deliveries, boolean created) {
  public PublishedEvent {
    deliveries = List.copyOf(deliveries);
  }

  /** How many endpoints took it so far. */
  public long taken() {
    return deliveries.stream().filter(EventDelivery::taken).count();
  }
}
