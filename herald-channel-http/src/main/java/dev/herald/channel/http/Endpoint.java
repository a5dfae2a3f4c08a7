package dev.herald.channel.http;

/**
 * A receiver's origin: scheme, host and port. Each has its own concurrency limit and circuit.
 *
 * @param scheme {@code http} or {@code https}
 * @param host lower case; IPv6 literals without brackets
 * @param port explicit or the scheme's default
 */
record Endpoint(String scheme, String host, int port) {
  @Override
  public String toString() {
    return scheme + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
