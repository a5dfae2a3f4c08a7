package dev.herald.channel.http;

import dev.herald.Origins;

/**
 * A receiver's origin: scheme, host and port. Each has its own concurrency limit and circuit. Named
 * as {@link Origins} names it, so the engine's circuits, alerts and this channel agree.
 *
 * @param scheme {@code http} or {@code https}
 * @param host lower case; IPv6 literals without brackets
 * @param port explicit or the scheme's default
 */
record Endpoint(String scheme, String host, int port) {
  @Override
  public String toString() {
    return Origins.format(scheme, host, port);
  }
}
