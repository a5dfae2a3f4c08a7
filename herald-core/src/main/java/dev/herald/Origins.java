package dev.herald;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The identity of an http(s) receiver: the origin of its URL, {@code scheme://host:port} (scheme and
 * host in lower case, the port explicit, an IPv6 host in brackets). The engine keys sync-first
 * circuits and per-receiver lanes by it, alerts name their endpoint by it, and the http channel
 * names its endpoints the same way, so that all of them agree on which receiver is which.
 */
public final class Origins {
  /** Targets already read (every attempt asks; a URI parse is a visible share of a webhook's cost); "" = not http. */
  private static final Map<String, String> KNOWN = new ConcurrentHashMap<>();
  private static final int MAX_KNOWN = 10_000;

  private Origins() {}

  /**
   * The origin of an http(s) URL; null for anything else (another scheme, no host, not a URL, null).
   * The whole text is one URL: a fail-over list is not one.
   */
  public static String of(String url) {
    if (url == null) {
      return null;
    }
    String known = KNOWN.get(url);
    if (known == null) {
      known = parse(url);
      if (KNOWN.size() < MAX_KNOWN) {
        KNOWN.put(url, known);
      }
    }
    return known.isEmpty() ? null : known;
  }

  /** {@code scheme://host:port}, the IPv6 literal {@code host} (with or without brackets) in brackets. */
  public static String format(String scheme, String host, int port) {
    boolean bare = host.indexOf(':') >= 0 && !host.startsWith("[");
    return scheme + "://" + (bare ? "[" + host + "]" : host) + ":" + port;
  }

  private static String parse(String url) {
    URI uri;
    try {
      uri = new URI(url.strip());
    } catch (URISyntaxException e) {
      return "";
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      return "";
    }
    int port = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    return format(scheme, uri.getHost().toLowerCase(Locale.ROOT), port);
  }
}
