package dev.herald.server;

import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import dev.herald.events.EventEndpoint;
import java.util.List;

/**
 * An event endpoint's secret values sealed at rest as every webhook definition's are ({@link
 * DefinitionSecrets}, the key of {@code herald.server.secret-key}): signing secrets, secret headers,
 * a client key or key store and its password, an OAuth 2.0 client secret. Sealed before the endpoint
 * is saved; {@link ServerHttpChannel} opens them where the request is made.
 */
final class EndpointSecrets {
  private final DefinitionSecrets secrets;

  EndpointSecrets(DefinitionSecrets secrets) {
    this.secrets = secrets;
  }

  /** Whether an option's value is a secret: named so by the server, or one of the HTTP channel's credentials. */
  static boolean isSecret(String optionKey) {
    return Views.isSecret(optionKey) || HttpChannel.isSecretOption(optionKey);
  }

  /** The endpoint with its secret option values sealed under the current key (unchanged without a key). */
  EventEndpoint seal(EventEndpoint e) {
    return with(e, secrets.seal(e.delivery()));
  }

  /** The endpoint with its secret option values in plain text. */
  EventEndpoint open(EventEndpoint e) {
    return with(e, secrets.open(e.delivery()));
  }

  /** An endpoint's signing secrets in plain text, newest first. */
  List<String> secrets(EventEndpoint e) {
    return open(e).secrets();
  }

  private static EventEndpoint with(EventEndpoint e, NoticeDefinition d) {
    return d == e.delivery() ? e : new EventEndpoint(e.tenant(), e.id(), e.description(), e.enabled(), e.eventTypes(),
        e.filter(), d, e.createdAt(), e.updatedAt());
  }
}
