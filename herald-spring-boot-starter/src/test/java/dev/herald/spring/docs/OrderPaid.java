package dev.herald.spring.docs;

import java.math.BigDecimal;

/** The payload of an order-paid notice. */
public record OrderPaid(long orderId, BigDecimal amount) {}
