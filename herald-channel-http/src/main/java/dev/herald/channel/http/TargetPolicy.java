package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The SSRF guard: which hosts and addresses a webhook may reach. Public addresses always; loopback,
 * private, link-local, unspecified and reserved ones with {@code allowPrivateNetworks}; anything on
 * the allow-list (host names, {@code *.suffix} patterns, IP addresses and CIDR blocks).
 */
final class TargetPolicy {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /** Resolves a host to all its addresses; {@code InetAddress::getAllByName} outside tests. */
  @FunctionalInterface
  interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** Why a target was refused: the address (or host) and what it is. */
  record Refusal(String what, AddressKind kind, boolean byName) {
    String message() {
      String subject = byName
          ? "target host '" + what + "' names " + kind.description()
          : "target resolves to " + kind.description() + " " + what;
      return subject + "; refused to prevent server-side request "
          + "forgery (allow it with HttpChannel.builder()" + (kind.coveredByPrivateNetworks()
              ? ".allowPrivateNetworks(true) or " : ".") + "allow(\"" + what + "\"))";
    }
  }

  private final boolean allowPrivateNetworks;
  private final List<Cidr> allowedBlocks;
  private final List<String> allowedHosts;
  private final Resolver resolver;

  TargetPolicy(boolean allowPrivateNetworks, List<String> allowList, Resolver resolver) {
    this.allowPrivateNetworks = allowPrivateNetworks;
    this.resolver = resolver;
    List<Cidr> blocks = new ArrayList<>();
    List<String> hosts = new ArrayList<>();
    for (String entry : allowList) {
      String e = entry == null ? "" : entry.strip().toLowerCase(Locale.ROOT);
      if (e.isEmpty()) {
        throw new InvalidInputException("allow", "entries must not be blank");
      }
      if (looksLikeAddress(e)) {
        blocks.add(Cidr.parse(e));
      } else {
        hosts.add(e);
      }
    }
    this.allowedBlocks = List.copyOf(blocks);
    this.allowedHosts = List.copyOf(hosts);
  }

  Resolver resolver() {
    return resolver;
  }

  /** The check at definition time: syntax, then the host and what it resolves to now. */
  Target validate(String text) {
    Target t = Target.parse(text);
    Refusal r;
    try {
      r = check(t.host(), resolver.resolve(t.host()));
    } catch (UnknownHostException e) {
      // Accepted: DNS may not know it yet. Checked again (and refused if private) at every delivery.
      r = byName(t.host());
    }
    if (r != null) {
      throw new InvalidInputException("target", r.message());
    }
    return t;
  }

  /**
   * Null if every address may be reached; else the first refused one. A host on the allow-list (by
   * name or {@code *.suffix}) may resolve to private-network addresses, never to metadata or multicast
   * ones: those need an address or block on the list.
   */
  Refusal check(String host, InetAddress[] addresses) {
    boolean hostAllowed = hostAllowed(host, false);
    Refusal named = byName(host);
    if (named != null) {
      return named;
    }
    for (InetAddress a : addresses) {
      AddressKind kind = AddressKind.of(a);
      if (kind == AddressKind.PUBLIC) {
        continue;
      }
      if ((allowPrivateNetworks || hostAllowed) && kind.coveredByPrivateNetworks()) {
        continue;
      }
      if (allowedBlocks.stream().anyMatch(c -> c.contains(a))) {
        continue;
      }
      return new Refusal(a.getHostAddress(), kind, false);
    }
    return null;
  }

  /**
   * Names that mean an internal address whatever DNS says (RFC 6761 localhost, GCP metadata). A
   * metadata name passes only by an exact allow entry, never by a {@code *.suffix} one.
   */
  private Refusal byName(String host) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    if ((h.equals("localhost") || h.endsWith(".localhost")) && !allowPrivateNetworks && !hostAllowed(host, false)) {
      return new Refusal(host, AddressKind.LOOPBACK, true);
    }
    if ((h.equals("metadata.google.internal") || h.equals("metadata")) && !hostAllowed(host, true)) {
      return new Refusal(host, AddressKind.METADATA, true);
    }
    return null;
  }

  /** Whether an allow entry names the host: exactly, or also by a {@code *.suffix} pattern unless {@code exactOnly}. */
  private boolean hostAllowed(String host, boolean exactOnly) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    for (String allowed : allowedHosts) {
      if (allowed.startsWith("*.") ? !exactOnly && h.endsWith(allowed.substring(1)) : h.equals(allowed)) {
        return true;
      }
    }
    return false;
  }

  private static boolean looksLikeAddress(String e) {
    String addr = e.contains("/") ? e.substring(0, e.indexOf('/')) : e;
    return IPV4.matcher(addr).matches() || addr.contains(":");
  }

  /** An address block such as {@code 10.0.0.0/8} or {@code fd00::/8}; a bare address is a /32 or /128. */
  record Cidr(byte[] network, int prefix) {
    static Cidr parse(String text) {
      String addr = text;
      int prefix = -1;
      int slash = text.indexOf('/');
      if (slash >= 0) {
        addr = text.substring(0, slash);
        try {
          prefix = Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
          throw new InvalidInputException("allow", "'" + text + "' has no valid prefix length");
        }
      }
      if (addr.startsWith("[") && addr.endsWith("]")) {
        addr = addr.substring(1, addr.length() - 1);
      }
      byte[] bytes;
      try {
        bytes = InetAddress.getByName(addr).getAddress(); // a literal (checked above): no DNS lookup
      } catch (UnknownHostException e) {
        throw new InvalidInputException("allow", "'" + text + "' is not an IP address or CIDR block");
      }
      int max = bytes.length * 8;
      if (prefix == -1) {
        prefix = max;
      }
      if (prefix < 0 || prefix > max) {
        throw new InvalidInputException("allow", "'" + text + "': prefix length must be 0 to " + max);
      }
      return new Cidr(bytes, prefix);
    }

    boolean contains(InetAddress a) {
      byte[] b = a.getAddress();
      if (b.length != network.length) {
        return false;
      }
      int full = prefix / 8;
      for (int i = 0; i < full; i++) {
        if (b[i] != network[i]) {
          return false;
        }
      }
      int rest = prefix % 8;
      if (rest == 0) {
        return true;
      }
      int mask = (0xff << (8 - rest)) & 0xff;
      return (b[full] & mask) == (network[full] & mask);
    }
  }
}
