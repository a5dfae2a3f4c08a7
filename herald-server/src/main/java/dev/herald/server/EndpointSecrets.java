package dev.herald.server;

import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import dev.herald.events.EventEndpoint;
import java.util.List;
import java.util.Map;

/**
 * An event endpoint's secret values sealed at rest ({@link SecretBox}, the key of {@code
 * herald.server.secret-key}): signing secrets, secret headers, a client key or key store and its
 * password, an OAuth 2.0 client secret. Sealed before the endpoint is saved; the HTTP channel opens
 * them when it reads the endpoint's definition ({@code HttpChannel.Builder.secretOpener}).
 */
final class EndpointSecrets {
  private final SecretBox box;

  EndpointSecrets(SecretBox box) {
    this.box = box;
  }

  /** Whether an option's value is a secret: named so by the server, or one of the HTTP channel's credentials. */
  static boolean isSecret(String optionKey) {
    return Views.isSecret(optionKey) || HttpChannel.isSecretOption(optionKey);
  }

  /** The endpoint with its secret option values sealed under the current key (unchanged without a key). */
  EventEndpoint seal(EventEndpoint e) {
    NoticeDefinition d = e.delivery();
    NoticeDefinition.Builder b = d.toBuilder();
    boolean changed = false;
    for (Map.Entry<String, String> o : d.options().entrySet()) {
      if (isSecret(o.getKey()) && box.stale(o.getValue())) {
        if (o.getKey().equals("secrets")) {
          // each secret sealed alone, so that they can be counted and rotated one by one
          b.option("secrets", String.join(" ", List.of(o.getValue().strip().split("\\s+")).stream()
              .map(box::seal).toList()));
        } else {
          b.option(o.getKey(), box.seal(o.getValue()));
        }
        changed = true;
      }
    }
    return !changed ? e : new EventEndpoint(e.tenant(), e.id(), e.description(), e.enabled(), e.eventTypes(),
        e.filter(), b.build(), e.createdAt(), e.updatedAt());
  }

  /** A stored value in plain text. */
  String open(String value) {
    return box.open(value);
  }

  /**
   * Opens a stored option value; the {@code secrets} option's entries one by one. What the HTTP
   * channel's secret opener calls.
   */
  String openOption(String value) {
    if (value == null || !value.contains(" ")) {
      return box.open(value);
    }
    List<String> parts = List.of(value.strip().split("\\s+"));
    return parts.stream().allMatch(SecretBox::isSealed) ? String.join(" ", parts.stream().map(box::open).toList())
        : box.open(value);
  }

  /** An endpoint's signing secrets in plain text, newest first. */
  List<String> secrets(EventEndpoint e) {
    return e.secrets().stream().map(box::open).toList();
  }
}
