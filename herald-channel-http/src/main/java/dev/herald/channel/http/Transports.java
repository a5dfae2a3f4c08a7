package dev.herald.channel.http;

import java.net.ProxySelector;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;

/**
 * The channel's HTTP clients: the shared one, and one per TLS identity (a definition's client
 * certificate or trusted authorities), made at the first request that needs it, so that a connection
 * opened with one client certificate is never reused for another. An identity's client has one I/O
 * thread; at most {@value #MAX_IDENTITIES} identities per channel.
 */
final class Transports implements AutoCloseable {
  static final int MAX_IDENTITIES = 256;

  private final GuardedResolver guard;
  private final Duration connectTimeout;
  private final ProxySelector proxy;
  private final HttpTransport shared;
  private final Map<String, HttpTransport> byIdentity = new ConcurrentHashMap<>();
  private volatile boolean closed;

  Transports(GuardedResolver guard, Duration connectTimeout, SSLContext sslContext, ProxySelector proxy, int ioThreads) {
    this.guard = guard;
    this.connectTimeout = connectTimeout;
    this.proxy = proxy;
    this.shared = new HttpTransport(guard, connectTimeout, sslContext, proxy, ioThreads);
  }

  HttpTransport shared() {
    return shared;
  }

  /**
   * The client of a TLS identity (the shared one for none).
   *
   * @throws IllegalStateException when the channel already has {@value #MAX_IDENTITIES} identities
   */
  HttpTransport of(TlsIdentity identity) {
    if (identity == null) {
      return shared;
    }
    HttpTransport t = byIdentity.get(identity.fingerprint());
    if (t != null) {
      return t;
    }
    synchronized (this) {
      t = byIdentity.get(identity.fingerprint());
      if (t == null) {
        if (closed) {
          throw new IllegalStateException("the HTTP channel is closed");
        }
        if (byIdentity.size() >= MAX_IDENTITIES) {
          throw new IllegalStateException("this channel has clients for " + MAX_IDENTITIES + " TLS identities (client"
              + " certificates or trusted CAs) already; no more are made");
        }
        t = new HttpTransport(guard, connectTimeout, identity.sslContext(), proxy, 1);
        byIdentity.put(identity.fingerprint(), t);
      }
      return t;
    }
  }

  /** How many identity clients there are, for tests. */
  int identities() {
    return byIdentity.size();
  }

  @Override
  public synchronized void close() {
    closed = true;
    shared.close();
    byIdentity.values().forEach(HttpTransport::close);
  }
}
