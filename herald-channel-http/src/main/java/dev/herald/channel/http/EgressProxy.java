package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * An HTTP proxy for every request but those to the hosts of {@code noProxy}: host names, {@code
 * *.suffix} patterns (also matching the bare suffix), IP addresses. What {@code
 * herald.http.proxy} and {@code herald.http.proxy-exclude} set.
 */
final class EgressProxy extends ProxySelector {
  private final Proxy proxy;
  private final String display;
  private final List<String> noProxy;

  private EgressProxy(Proxy proxy, String display, List<String> noProxy) {
    this.proxy = proxy;
    this.display = display;
    this.noProxy = noProxy;
  }

  static EgressProxy of(String url, List<String> noProxy) {
    URI u;
    try {
      u = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw new InvalidInputException("proxy", "must be a URL such as http://proxy.internal:3128, was '" + url + "'");
    }
    if (!"http".equalsIgnoreCase(u.getScheme()) || u.getHost() == null || u.getUserInfo() != null
        || (u.getPath() != null && !u.getPath().isEmpty() && !u.getPath().equals("/"))) {
      throw new InvalidInputException("proxy", "must be http://host:port of an HTTP proxy (no user, no path), was '"
          + url + "'");
    }
    int port = u.getPort() == -1 ? 80 : u.getPort();
    List<String> hosts = noProxy.stream().map(h -> h.strip().toLowerCase(Locale.ROOT)).filter(h -> !h.isEmpty()).toList();
    for (String h : hosts) {
      if (h.contains("/") || h.contains(":") && !h.contains("::") && h.chars().filter(c -> c == ':').count() == 1) {
        throw new InvalidInputException("noProxy", "'" + h + "' must be a host name, *.suffix or an IP address");
      }
    }
    return new EgressProxy(new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(u.getHost(), port)),
        "http://" + u.getHost() + ":" + port, hosts);
  }

  @Override
  public List<Proxy> select(URI uri) {
    String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    for (String h : noProxy) {
      if (h.equals(host) || h.startsWith("*.") && (host.endsWith(h.substring(1)) || host.equals(h.substring(2)))) {
        return List.of(Proxy.NO_PROXY);
      }
    }
    return List.of(proxy);
  }

  @Override
  public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
    // the attempt reports the failure; nothing to remember here
  }

  @Override
  public String toString() {
    return display + (noProxy.isEmpty() ? "" : " (not for " + String.join(", ", noProxy) + ")");
  }
}
