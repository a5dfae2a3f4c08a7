package dev.herald.spring.docs;

import dev.herald.spring.NoticeEvent;

// tag::event[]
@NoticeEvent(value = "order-shipped", idempotencyKey = "orderId") // published, it becomes a notice
public record OrderShipped(long orderId, String tracking) {}
// end::event[]
