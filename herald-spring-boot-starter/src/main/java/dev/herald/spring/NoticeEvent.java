package dev.herald.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an application event type as a notice: published with Spring's {@code
 * ApplicationEventPublisher}, an instance becomes a notice of {@link #value() the definition}, exactly
 * as if {@link NoticePublisher#publish} had been called where the event was published. Inside a
 * transaction the notice is written in that transaction and delivered right after the commit;
 * after a rollback it never existed. Business code needs no Herald call:
 *
 * <pre>{@code
 * @NoticeEvent(value = "order-paid", idempotencyKey = "orderId")
 * public record OrderPaid(long orderId, BigDecimal amount) {}
 *
 * @Transactional
 * public void pay(long orderId, BigDecimal amount) {
 *   ...
 *   events.publishEvent(new OrderPaid(orderId, amount));
 * }
 * }</pre>
 *
 * <p>With {@link #eventType()} instead of a definition, the instance is published as an event of that
 * type: one notice per endpoint subscribed to it, in the same transaction ({@link
 * NoticePublisher#publishEvent}).
 *
 * <pre>{@code
 * @NoticeEvent(eventType = "order.paid", idempotencyKey = "orderId")
 * public record OrderPaid(long orderId, BigDecimal amount) {}
 * }</pre>
 *
 * <p>The payload is the event written as JSON by the application's Jackson {@code JsonMapper} (its
 * annotations shape it), or one of its properties ({@link #payload()}). A notice that cannot be
 * written (an unknown definition, a payload too large) throws from {@code publishEvent}, in the
 * caller's transaction, like {@code publish} does.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface NoticeEvent {
  /** The definition of the notices this event becomes; leave it out to name an {@link #eventType()}. */
  String value() default "";

  /** The event type it is published as (one notice per subscribed endpoint); leave it out to name a definition. */
  String eventType() default "";

  /** The property (record component or no-argument method) whose value is the payload; blank: the whole event. */
  String payload() default "";

  /** The property whose value (as text) is the notice's idempotency key; blank: none. */
  String idempotencyKey() default "";
}
