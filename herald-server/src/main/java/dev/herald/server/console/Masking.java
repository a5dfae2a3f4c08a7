package dev.herald.server.console;

import java.util.Locale;
import java.util.regex.Pattern;

/** What the console never shows in full: webhook signatures and secret definition options. */
final class Masking {
  private static final Pattern SIGNATURE = Pattern.compile("(v1a?,)[A-Za-z0-9+/=_-]{8,}");

  private Masking() {}

  /** Signatures ({@code v1,<base64>}) in attempt details become {@code v1,****}. */
  static String signatures(String text) {
    return text == null ? null : SIGNATURE.matcher(text).replaceAll("$1****");
  }

  /** An option's value, or {@code ****} when its key names a secret, password or token. */
  static String option(String key, String value) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("secret") || k.contains("password") || k.contains("token") ? "****" : value;
  }
}
