package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A webhook URL, checked for syntax: absolute {@code http} or {@code https}, with a host, without
 * user info or fragment.
 *
 * @param uri the URL as given
 * @param endpoint its origin, the unit of isolation
 * @param host the host to resolve: lower case, IPv6 literals without brackets
 * @param literal the address, if the host is an IP literal; else null
 */
record Target(URI uri, Endpoint endpoint, String host, java.net.InetAddress literal) {

  /** Most URLs kept parsed; then the cache starts again. */
  private static final int CACHED = 4_096;
  /**
   * URLs parsed lately. Per-notice callback URLs are parsed at every attempt, and a few receivers'
   * URLs repeat over and over: parsing and the IPv4 check were 9 % of the server's CPU at 3,000
   * callbacks/s (herald-bench, case server).
   */
  private static final Map<String, Target> PARSED = new ConcurrentHashMap<>();

  /** @throws InvalidInputException naming {@code target} */
  static Target parse(String text) {
    Target known = text == null ? null : PARSED.get(text);
    if (known != null) {
      return known;
    }
    Target t = parseText(text);
    if (PARSED.size() >= CACHED) {
      PARSED.clear();
    }
    PARSED.put(text, t);
    return t;
  }

  private static Target parseText(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException("target", "must be an absolute http or https URL, was blank");
    }
    URI uri;
    try {
      uri = new URI(text.strip());
    } catch (URISyntaxException e) {
      throw new InvalidInputException("target", "'" + text + "' is not a URL: " + e.getReason()
          + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
    }
    String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme == null || !uri.isAbsolute()) {
      throw new InvalidInputException("target", "'" + text + "' must be an absolute http or https URL");
    }
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new InvalidInputException("target", "'" + text + "' must use http or https, not " + scheme);
    }
    if (uri.getRawUserInfo() != null) {
      throw new InvalidInputException("target",
          "must not contain user info (user:password@); put credentials in a header or the payload, not the URL");
    }
    if (uri.getHost() == null) {
      String authority = uri.getRawAuthority();
      if (authority != null && authority.matches("[0-9a-fA-FxX.]+(:\\d*)?")) {
        Ipv4Literal.refuseNonCanonical(authority.replaceFirst(":\\d*$", "")); // java.net.URI takes 127.1 for no host
      }
      throw new InvalidInputException("target", "'" + text + "' has no valid host"
          + (uri.getRawAuthority() != null && uri.getRawAuthority().contains("_") ? " (host names may not contain '_')" : ""));
    }
    if (uri.getRawFragment() != null) {
      throw new InvalidInputException("target", "'" + text + "' must not have a fragment (#...): it is never sent");
    }
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.contains("%")) {
      // an IPv6 zone id names one of this machine's interfaces: meaningless for a receiver, never sent
      throw new InvalidInputException("target", "'" + text + "' has an IPv6 zone id (%...); write the address"
          + " without it");
    }
    if (!host.contains(":")) {
      Ipv4Literal.refuseNonCanonical(host);
    }
    int port = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    return new Target(uri, new Endpoint(scheme, host, port), host, literal(host));
  }

  /** The address of an IP-literal host (parsed, no DNS); null for a name. */
  private static java.net.InetAddress literal(String host) {
    if (!host.contains(":") && !IPV4.matcher(host).matches()) {
      return null;
    }
    try {
      return java.net.InetAddress.getByName(host);
    } catch (java.net.UnknownHostException e) {
      throw new InvalidInputException("target", "'" + host + "' is not a valid IP address");
    }
  }

  private static final java.util.regex.Pattern IPV4 = java.util.regex.Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  boolean isHttps() {
    return endpoint.scheme().equals("https");
  }
}
