package dev.herald.channel.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hc.client5.http.DnsResolver;

/**
 * The SSRF guard where the HTTP client resolves a host to connect to it: the addresses checked are
 * the addresses connected to, whatever DNS answers to the next query (rebinding) and however the
 * host was written. A refused host fails the exchange with {@link Refused} before any connection.
 */
final class GuardedResolver implements DnsResolver {
  private final TargetPolicy policy;

  GuardedResolver(TargetPolicy policy) {
    this.policy = policy;
  }

  /** Resolves {@code host} once and returns those addresses if the guard lets every one through. */
  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    InetAddress[] addresses = policy.resolver().resolve(host);
    TargetPolicy.Refusal refusal = policy.check(host, addresses);
    if (refusal != null) {
      throw new Refused(refusal);
    }
    return addresses;
  }

  @Override
  public String resolveCanonicalHostname(String host) {
    return host;
  }

  /** The guard refused a target's host or one of its addresses. */
  static final class Refused extends UnknownHostException {
    private final transient TargetPolicy.Refusal refusal;

    Refused(TargetPolicy.Refusal refusal) {
      super(refusal.message());
      this.refusal = refusal;
    }

    TargetPolicy.Refusal refusal() {
      return refusal;
    }

    /** The refusal in {@code e}'s cause chain, or null. */
    static TargetPolicy.Refusal in(Throwable e) {
      for (Throwable x = e; x != null; x = x.getCause() == x ? null : x.getCause()) {
        if (x instanceof Refused r) {
          return r.refusal;
        }
      }
      return null;
    }
  }
}
