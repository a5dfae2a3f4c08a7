package dev.herald.examples.spring;

import java.math.BigDecimal;

/** What the marketing platform hears about: the notice's payload, written as JSON by Jackson. */
public record OrderPaid(long orderId, String customer, BigDecimal amount) {}
