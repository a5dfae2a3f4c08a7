package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.math.BigInteger;
import java.util.Locale;

/**
 * IPv4 addresses written other than as four decimal numbers: {@code 0x7f000001}, {@code 2130706433},
 * {@code 017700000001}, {@code 0177.0.0.1}, {@code 127.1}. Libraries read these differently (the
 * WHATWG URL parser and {@code inet_aton} as 127.0.0.1, others as a host name or a decimal 177), so
 * the address the SSRF guard checks might not be the one connected to: they are refused when saved.
 */
final class Ipv4Literal {
  private Ipv4Literal() {}

  /**
   * Refuses a host that a URL parser would read as an IPv4 address (its last label is a number) unless
   * it is written canonically: four decimal numbers 0 to 255 without leading zeros.
   *
   * @throws InvalidInputException naming {@code target}
   */
  static void refuseNonCanonical(String host) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    String[] parts = h.split("\\.", -1);
    if (!isNumber(parts[parts.length - 1])) {
      return; // a host name
    }
    if (parts.length == 4 && allCanonicalOctets(parts) && !host.endsWith(".")) {
      return;
    }
    String reading = whatwgReading(parts);
    throw new InvalidInputException("target", "host '" + host + "' is an IPv4 address in a non-canonical form"
        + " (hexadecimal, octal, leading zeros, fewer than four parts or a trailing dot), which libraries read as"
        + " different addresses; write it as four decimal numbers" + (reading == null ? "" : ", e.g. " + reading));
  }

  private static boolean allCanonicalOctets(String[] parts) {
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)
          || (p.length() > 1 && p.charAt(0) == '0') || Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }

  /** A decimal, {@code 0x} hexadecimal or leading-zero octal number, as the WHATWG URL standard reads them. */
  private static boolean isNumber(String part) {
    return value(part) != null;
  }

  private static BigInteger value(String part) {
    String p = part.toLowerCase(Locale.ROOT);
    int radix = 10;
    if (p.startsWith("0x")) {
      radix = 16;
      p = p.substring(2);
      if (p.isEmpty()) {
        return BigInteger.ZERO;
      }
    } else if (p.length() > 1 && p.startsWith("0")) {
      radix = 8;
      p = p.substring(1);
    }
    if (p.isEmpty() || p.length() > 40) {
      return null;
    }
    for (char c : p.toCharArray()) {
      if (Character.digit(c, radix) < 0) {
        return null;
      }
    }
    return new BigInteger(p, radix);
  }

  /** The address the WHATWG URL parser reads, as four decimal numbers; null if it reads none. */
  private static String whatwgReading(String[] parts) {
    if (parts.length > 4) {
      return null;
    }
    long[] v = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      BigInteger b = value(parts[i]);
      if (b == null || b.bitLength() > 32) {
        return null;
      }
      v[i] = b.longValue();
    }
    for (int i = 0; i < v.length - 1; i++) {
      if (v[i] > 255) {
        return null;
      }
    }
    long last = v[v.length - 1];
    if (last >= 1L << (8 * (5 - v.length))) {
      return null;
    }
    long address = last;
    for (int i = 0; i < v.length - 1; i++) {
      address += v[i] << (8 * (3 - i));
    }
    return (address >>> 24) + "." + ((address >>> 16) & 255) + "." + ((address >>> 8) & 255) + "." + (address & 255);
  }
}
