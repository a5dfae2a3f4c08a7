package dev.herald.channel.amqp;

import com.rabbitmq.client.ConnectionFactory;
import dev.herald.InvalidInputException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;

/**
 * Reads an {@code amqp://user:password@host:port/vhost} or {@code amqps://} URI. A URI ending in a
 * bare slash, {@code amqp://user:pass@host/} as many examples write it, means the default virtual
 * host {@code /}: the AMQP URI spec would read it as the empty vhost, which no RabbitMQ has, so every
 * connection would fail with "vhost not found". Any other vhost is written percent-encoded after the
 * slash, e.g. {@code /orders}, or {@code /%2F} for {@code /} itself.
 */
final class AmqpUri {
  private AmqpUri() {}

  /** @throws InvalidInputException naming {@code field} if {@code uri} is not an AMQP URI */
  static ConnectionFactory factory(String uri, String field) {
    ConnectionFactory f = new ConnectionFactory();
    try {
      f.setUri(uri);
    } catch (URISyntaxException | GeneralSecurityException | IllegalArgumentException e) {
      throw new InvalidInputException(field, "is not an amqp:// or amqps:// URI (amqp://user:password@host:port/vhost): "
          + e.getMessage());
    }
    if (f.getVirtualHost().isEmpty()) {
      f.setVirtualHost(ConnectionFactory.DEFAULT_VHOST);
    }
    return f;
  }
}
