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

  /** Text from a request shown back: control characters replaced, at most 200 characters. */
  static String text(String s) {
    if (s == null) {
      return null;
    }
    String clean = s.replaceAll("\\p{Cntrl}", "?");
    return clean.length() <= 200 ? clean : clean.substring(0, 200) + "...";
  }

  /** An option's value, or {@code ****} when its key names a secret, password or token. */
  static String option(String key, String value) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("secret") || k.contains("password") || k.contains("token") ? "****" : value;
  }
}
