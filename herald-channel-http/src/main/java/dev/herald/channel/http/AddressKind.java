package dev.herald.channel.http;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * What an IP address is, for the SSRF guard. Everything but {@link #PUBLIC} is refused unless the
 * operator allows it; {@link #METADATA} and {@link #MULTICAST} are not covered by {@code
 * allowPrivateNetworks(true)} and need an explicit allow-list entry.
 */
enum AddressKind {
  PUBLIC("a public address", true),
  LOOPBACK("a loopback address", true),
  PRIVATE("a private address", true),
  LINK_LOCAL("a link-local address", true),
  UNSPECIFIED("an unspecified address", true),
  RESERVED("a reserved or shared (non-internet) address", true),
  MULTICAST("a multicast address", false),
  METADATA("a cloud metadata address", false);

  private final String description;
  private final boolean coveredByPrivateNetworks;

  AddressKind(String description, boolean coveredByPrivateNetworks) {
    this.description = description;
    this.coveredByPrivateNetworks = coveredByPrivateNetworks;
  }

  /** E.g. "a private address". */
  String description() {
    return description;
  }

  /** Whether {@code allowPrivateNetworks(true)} lets it through. */
  boolean coveredByPrivateNetworks() {
    return coveredByPrivateNetworks;
  }

  static AddressKind of(InetAddress address) {
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return ofIpv4(b, 0);
    }
    if (address instanceof Inet6Address) {
      return ofIpv6(b);
    }
    return RESERVED;
  }

  private static int u(byte x) {
    return x & 0xff;
  }

  private static AddressKind ofIpv4(byte[] b, int o) {
    int a0 = u(b[o]);
    int a1 = u(b[o + 1]);
    int a2 = u(b[o + 2]);
    int a3 = u(b[o + 3]);
    if (a0 == 0) {
      return a1 == 0 && a2 == 0 && a3 == 0 ? UNSPECIFIED : RESERVED; // 0.0.0.0, 0/8 "this network"
    }
    if (a0 == 127) {
      return LOOPBACK;
    }
    if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) {
      return PRIVATE; // RFC 1918
    }
    if (a0 == 169 && a1 == 254) {
      return a2 == 169 && a3 == 254 ? METADATA : LINK_LOCAL; // AWS, GCP, Azure, OCI... metadata
    }
    if (a0 == 100 && a1 == 100 && a2 == 100 && a3 == 200) {
      return METADATA; // Alibaba Cloud
    }
    if (a0 == 100 && (a1 & 0xc0) == 64) {
      return RESERVED; // 100.64/10, carrier-grade NAT (RFC 6598)
    }
    if ((a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) // IETF assignments, TEST-NET-1
        || (a0 == 198 && (a1 & 0xfe) == 18) // benchmarking
        || (a0 == 198 && a1 == 51 && a2 == 100) // TEST-NET-2
        || (a0 == 203 && a1 == 0 && a2 == 113)) { // TEST-NET-3
      return RESERVED;
    }
    if ((a0 & 0xf0) == 224) {
      return MULTICAST;
    }
    if ((a0 & 0xf0) == 240) {
      return RESERVED; // 240/4 and the broadcast address
    }
    return PUBLIC;
  }

  private static AddressKind ofIpv6(byte[] b) {
    boolean first10Zero = true;
    for (int i = 0; i < 10; i++) {
      first10Zero &= b[i] == 0;
    }
    if (first10Zero && u(b[10]) == 0xff && u(b[11]) == 0xff) {
      return ofIpv4(b, 12); // IPv4-mapped ::ffff:a.b.c.d
    }
    boolean first8Zero = true;
    for (int i = 0; i < 8; i++) {
      first8Zero &= b[i] == 0;
    }
    if (first8Zero && u(b[8]) == 0xff && u(b[9]) == 0xff && b[10] == 0 && b[11] == 0) {
      return ofIpv4(b, 12); // IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 2765)
    }
    if (first10Zero && b[10] == 0 && b[11] == 0) {
      boolean zero = true;
      for (int i = 12; i < 15; i++) {
        zero &= b[i] == 0;
      }
      if (zero && b[15] == 0) {
        return UNSPECIFIED; // ::
      }
      if (zero && b[15] == 1) {
        return LOOPBACK; // ::1
      }
      return ofIpv4(b, 12); // deprecated IPv4-compatible ::a.b.c.d
    }
    int w0 = (u(b[0]) << 8) | u(b[1]);
    int w1 = (u(b[2]) << 8) | u(b[3]);
    int w2 = (u(b[4]) << 8) | u(b[5]);
    if (w0 == 0x64 && w1 == 0xff9b) {
      if (w2 == 0 && b[6] == 0 && b[7] == 0 && b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == 0) {
        return ofIpv4(b, 12); // NAT64 64:ff9b::/96 reaches the embedded IPv4 address
      }
      if (w2 == 1) {
        return PRIVATE; // 64:ff9b:1::/48, local-use NAT64
      }
    }
    if (w0 == 0x2002) {
      return ofIpv4(b, 2); // 6to4 embeds an IPv4 address
    }
    if (w0 == 0xfd00 && w1 == 0x0ec2 && isMetadataTail(b)) {
      return METADATA; // AWS fd00:ec2::254
    }
    if ((u(b[0]) & 0xfe) == 0xfc) {
      return PRIVATE; // unique local fc00::/7
    }
    if (u(b[0]) == 0xfe && (u(b[1]) & 0xc0) == 0x80) {
      return LINK_LOCAL; // fe80::/10
    }
    if (u(b[0]) == 0xfe && (u(b[1]) & 0xc0) == 0xc0) {
      return PRIVATE; // deprecated site-local fec0::/10
    }
    if (u(b[0]) == 0xff) {
      return MULTICAST;
    }
    if ((w0 == 0x0100 && w1 == 0 && w2 == 0 && b[6] == 0 && b[7] == 0) // discard-only 100::/64
        || (w0 == 0x2001 && w1 == 0x0db8)) { // documentation
      return RESERVED;
    }
    return PUBLIC;
  }

  private static boolean isMetadataTail(byte[] b) {
    for (int i = 4; i < 14; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return u(b[14]) == 0x02 && u(b[15]) == 0x54;
  }
}
