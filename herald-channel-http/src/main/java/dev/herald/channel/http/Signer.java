package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): for each secret {@code
 * whsec_<base64 key>}, {@code v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>}; several
 * secrets (key rotation) give several space-separated signatures in one {@code webhook-signature}
 * header.
 */
final class Signer {
  static final String PREFIX = "whsec_";
  /** The spec's lower bound for key size. */
  static final int MIN_KEY_BYTES = 24;
  static final int MAX_SECRETS = 10;

  private final List<byte[]> keys;
  /** One initialized Mac per key, cloned for each signature: cheaper than looking one up and keying it each time. */
  private final List<Mac> prototypes;

  private Signer(List<byte[]> keys) {
    this.keys = keys;
    List<Mac> macs = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      macs.add(newMac(key));
    }
    this.prototypes = List.copyOf(macs);
  }

  private static Mac newMac(byte[] key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private Mac mac(int i) {
    try {
      return (Mac) prototypes.get(i).clone();
    } catch (CloneNotSupportedException e) {
      return newMac(keys.get(i));
    }
  }

  /** No signing. */
  static final Signer NONE = new Signer(List.of());

  /**
   * Parses option {@code secrets}: space-separated {@code whsec_} secrets. Errors name the entry by
   * position, never by value.
   */
  static Signer parse(String option) {
    if (option == null) {
      return NONE;
    }
    String[] entries = option.strip().split("\\s+");
    if (option.isBlank()) {
      throw new InvalidInputException("options.secrets", "must not be blank (leave it out to send unsigned)");
    }
    if (entries.length > MAX_SECRETS) {
      throw new InvalidInputException("options.secrets", "at most " + MAX_SECRETS + " secrets, got " + entries.length);
    }
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i];
      String which = "entry " + (i + 1) + " of " + entries.length;
      if (!entry.startsWith(PREFIX)) {
        throw new InvalidInputException("options.secrets",
            which + " is not a Standard Webhooks secret: expected whsec_ followed by a base64 key");
      }
      byte[] key;
      try {
        key = Base64.getDecoder().decode(entry.substring(PREFIX.length()));
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("options.secrets", which + ": the part after whsec_ is not valid base64");
      }
      if (key.length < MIN_KEY_BYTES) {
        throw new InvalidInputException("options.secrets",
            which + ": key is " + key.length + " bytes, must be at least " + MIN_KEY_BYTES);
      }
      keys.add(key);
    }
    return new Signer(List.copyOf(keys));
  }

  boolean signs() {
    return !keys.isEmpty();
  }

  int count() {
    return keys.size();
  }

  /** The {@code webhook-signature} header value. */
  String sign(String id, long timestamp, byte[] body) {
    byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      Mac mac = mac(i);
      mac.update(prefix);
      mac.update(body);
      if (!out.isEmpty()) {
        out.append(' ');
      }
      out.append("v1,").append(Base64.getEncoder().encodeToString(mac.doFinal()));
    }
    return out.toString();
  }

  /** The header value as logged: {@code v1,****} per signature. */
  static String mask(String header) {
    StringBuilder out = new StringBuilder();
    for (String part : header.split(" ")) {
      if (!out.isEmpty()) {
        out.append(' ');
      }
      int comma = part.indexOf(',');
      out.append(comma >= 0 ? part.substring(0, comma + 1) : "").append("****");
    }
    return out.toString();
  }
}
