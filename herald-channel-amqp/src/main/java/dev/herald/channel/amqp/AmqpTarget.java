package dev.herald.channel.amqp;

import dev.herald.InvalidInputException;
import java.nio.charset.StandardCharsets;

/**
 * Where a message goes: {@code exchange/routing-key}. The exchange is what comes before the first
 * {@code /} (exchange names cannot hold one); {@code /orders} publishes to the default exchange,
 * straight to queue {@code orders}; {@code orders} alone uses an empty routing key (fanout and
 * headers exchanges).
 */
record AmqpTarget(String exchange, String routingKey) {
  private static final java.util.regex.Pattern EXCHANGE = java.util.regex.Pattern.compile("[A-Za-z0-9_.:-]{0,255}");

  /** @throws InvalidInputException naming {@code field} */
  static AmqpTarget parse(String text, String field) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(field,
          "must be exchange/routing-key (e.g. orders/order.paid, or /queue-name for the default exchange), was blank");
    }
    int slash = text.indexOf('/');
    String exchange = slash < 0 ? text : text.substring(0, slash);
    String key = slash < 0 ? "" : text.substring(slash + 1);
    if (!EXCHANGE.matcher(exchange).matches()) {
      throw new InvalidInputException(field, "exchange '" + exchange
          + "' may hold only letters, digits, '-', '_', '.', ':' (at most 255)");
    }
    if (key.getBytes(StandardCharsets.UTF_8).length > 255) {
      throw new InvalidInputException(field, "routing key must be at most 255 bytes");
    }
    if (exchange.isEmpty() && key.isEmpty()) {
      throw new InvalidInputException(field, "the default exchange needs a routing key: the queue's name, as /queue-name");
    }
    return new AmqpTarget(exchange, key);
  }

  @Override
  public String toString() {
    return (exchange.isEmpty() ? "(default exchange)" : "exchange '" + exchange + "'") + " routing key '" + routingKey + "'";
  }
}
