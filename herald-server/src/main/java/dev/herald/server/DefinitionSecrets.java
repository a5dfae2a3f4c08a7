package dev.herald.server;

import dev.herald.NoticeDefinition;
import java.util.Map;

/**
 * The secret options of webhook definitions ({@code secrets} and any option naming a secret, password
 * or token) sealed at rest by {@link SecretBox}: sealed before a definition is saved, opened only by
 * {@link ServerHttpChannel} where they sign. Definitions of other channels are left as they are: no
 * other channel here opens sealed values (and none has such options).
 */
public final class DefinitionSecrets {
  private final SecretBox box;

  public DefinitionSecrets(SecretBox box) {
    this.box = box;
  }

  public SecretBox box() {
    return box;
  }

  /** The definition with its secret options sealed under the current key (unchanged without a key). */
  public NoticeDefinition seal(NoticeDefinition d) {
    return rewrite(d, true);
  }

  /** The definition with its secret options in plain text, for the channel. */
  public NoticeDefinition open(NoticeDefinition d) {
    return rewrite(d, false);
  }

  /** Whether a secret option is stored plain while a key is set, or sealed under an older key. */
  public boolean stale(NoticeDefinition d) {
    return d.channel().equals(dev.herald.channel.http.HttpChannel.NAME) && d.options().entrySet().stream().anyMatch(e -> Views.isSecret(e.getKey()) && box.stale(e.getValue()));
  }

  private NoticeDefinition rewrite(NoticeDefinition d, boolean seal) {
    if (!d.channel().equals(dev.herald.channel.http.HttpChannel.NAME)) {
      return d;
    }
    boolean changes = false;
    for (Map.Entry<String, String> e : d.options().entrySet()) {
      if (Views.isSecret(e.getKey()) && (seal ? box.stale(e.getValue()) : SecretBox.isSealed(e.getValue()))) {
        changes = true;
      }
    }
    if (!changes) {
      return d;
    }
    NoticeDefinition.Builder b = d.toBuilder();
    for (Map.Entry<String, String> e : d.options().entrySet()) {
      if (Views.isSecret(e.getKey())) {
        b.option(e.getKey(), seal ? box.seal(e.getValue()) : box.open(e.getValue()));
      }
    }
    return b.build();
  }
}
