package dev.herald.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Secrets at rest: AES-256-GCM with a key from the environment ({@code HERALD_SERVER_SECRET_KEY}, 32
 * random bytes in base64). A sealed value reads {@code enc:v1:<key id>:<base64 of nonce and
 * ciphertext>}, the key id being the first 8 hex digits of the key's SHA-256, so that values sealed
 * under a previous key ({@code herald.server.previous-secret-keys}) still open while they are sealed
 * again under the current one. Without a key, values are stored as given (and the server warns).
 */
public final class SecretBox {
  static final String PREFIX = "enc:v1:";
  private static final int NONCE = 12;

  private final byte[] current;
  private final String currentId;
  private final Map<String, byte[]> keys = new LinkedHashMap<>();
  private final SecureRandom random = new SecureRandom();

  /**
   * @param key the current key (base64 of 32 bytes); null or blank for none
   * @param previous keys values may still be sealed under
   */
  public SecretBox(String key, List<String> previous) {
    List<String> all = new ArrayList<>();
    if (key != null && !key.isBlank()) {
      all.add(key);
    }
    if (previous != null) {
      previous.stream().filter(k -> k != null && !k.isBlank()).forEach(all::add);
    }
    for (String k : all) {
      byte[] bytes = decodeKey(k);
      keys.putIfAbsent(id(bytes), bytes);
    }
    this.current = key == null || key.isBlank() ? null : decodeKey(key);
    this.currentId = current == null ? null : id(current);
  }

  /** A new random key, as {@code herald.server.secret-key} takes it. */
  public static String newKey() {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    return Base64.getEncoder().encodeToString(k);
  }

  private static byte[] decodeKey(String text) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text.strip());
    } catch (IllegalArgumentException e) {
      bytes = new byte[0];
    }
    if (bytes.length != 32) {
      throw new IllegalStateException("herald.server.secret-key (and previous-secret-keys) must be 32 random bytes in"
          + " base64, e.g. from `openssl rand -base64 32`");
    }
    return bytes;
  }

  private static String id(byte[] key) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key)).substring(0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether a current key is set: values are sealed. */
  public boolean sealing() {
    return current != null;
  }

  public static boolean isSealed(String value) {
    return value != null && value.startsWith(PREFIX);
  }

  /** The value sealed under the current key; as given when there is no key or it is sealed already under it. */
  public String seal(String plain) {
    if (plain == null || current == null) {
      return plain;
    }
    if (isSealed(plain)) {
      return plain.startsWith(PREFIX + currentId + ":") ? plain : seal(open(plain));
    }
    try {
      byte[] nonce = new byte[NONCE];
      random.nextBytes(nonce);
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(current, "AES"), new GCMParameterSpec(128, nonce));
      byte[] sealed = c.doFinal(plain.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[NONCE + sealed.length];
      System.arraycopy(nonce, 0, out, 0, NONCE);
      System.arraycopy(sealed, 0, out, NONCE, sealed.length);
      return PREFIX + currentId + ":" + Base64.getEncoder().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal a secret: " + e.getMessage(), e);
    }
  }

  /**
   * The plain value; a value that is not sealed is returned as it is.
   *
   * @throws IllegalStateException if it was sealed under a key this server does not have
   */
  public String open(String value) {
    if (!isSealed(value)) {
      return value;
    }
    String rest = value.substring(PREFIX.length());
    int colon = rest.indexOf(':');
    byte[] key = colon < 0 ? null : keys.get(rest.substring(0, colon));
    if (key == null) {
      throw new IllegalStateException("a secret is sealed under key " + (colon < 0 ? "?" : rest.substring(0, colon))
          + ", which this server does not have: set herald.server.secret-key (or previous-secret-keys) to it");
    }
    try {
      byte[] in = Base64.getDecoder().decode(rest.substring(colon + 1));
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, in, 0, NONCE));
      return new String(c.doFinal(in, NONCE, in.length - NONCE), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalStateException("a sealed secret does not open (altered, or another key): " + e.getMessage(), e);
    }
  }

  /** Whether the value should be sealed again: plain while a key is set, or sealed under another key. */
  public boolean stale(String value) {
    if (current == null || value == null) {
      return false;
    }
    return !value.startsWith(PREFIX + currentId + ":");
  }
}
