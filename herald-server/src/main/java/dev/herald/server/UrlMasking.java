package dev.herald.server;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * URLs as shown to those who may not see credentials: webhook URLs often carry them ({@code
 * https://user:secret@host/}, {@code ?token=...}). The user info and every query value become
 * {@value #MASK}; scheme, host, port and path stay, so that one still sees where notices go.
 */
public final class UrlMasking {
  static final String MASK = "****";
  private static final Pattern URL = Pattern.compile("(?i)\\b(https?://)([^\\s/?#@]*@)?([^\\s/?#]*)([^\\s?#]*)(\\?[^\\s#]*)?(#\\S*)?");

  private UrlMasking() {}

  /** One URL (or several separated by spaces), masked; null stays null. */
  public static String mask(String url) {
    return url == null ? null : maskIn(url);
  }

  /** Every http(s) URL in a text (an attempt log, an error) masked. */
  public static String maskIn(String text) {
    if (text == null || !text.toLowerCase(java.util.Locale.ROOT).contains("http")) {
      return text;
    }
    Matcher m = URL.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      StringBuilder u = new StringBuilder(m.group(1));
      if (m.group(2) != null) {
        u.append(MASK).append('@');
      }
      u.append(m.group(3)).append(m.group(4));
      if (m.group(5) != null) {
        u.append('?').append(query(m.group(5).substring(1)));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(u.toString()));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String query(String q) {
    StringBuilder out = new StringBuilder();
    for (String part : q.split("&", -1)) {
      if (!out.isEmpty()) {
        out.append('&');
      }
      int eq = part.indexOf('=');
      out.append(eq < 0 ? part : part.substring(0, eq + 1) + MASK);
    }
    return out.toString();
  }
}
