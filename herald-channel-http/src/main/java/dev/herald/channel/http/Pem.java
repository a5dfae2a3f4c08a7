package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM text read into certificates and keys. Line breaks may be spaces (definition options are one
 * line): the base64 between the {@code -----BEGIN ...-----} and {@code -----END ...-----} markers is
 * read whatever whitespace it holds. Errors name the option, never its value.
 */
final class Pem {
  private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  private Pem() {}

  /** The blocks of {@code label} in order, decoded. */
  private static List<byte[]> blocks(String text, String label, String field) {
    List<byte[]> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      if (m.group(1).equals(label)) {
        try {
          out.add(Base64.getMimeDecoder().decode(m.group(2).replaceAll("\\s+", "")));
        } catch (IllegalArgumentException e) {
          throw new InvalidInputException(field, "block " + (out.size() + 1) + " (" + label + ") is not valid base64");
        }
      }
    }
    return out;
  }

  /** Every {@code CERTIFICATE} block, in order (a chain: the leaf first). */
  static List<X509Certificate> certificates(String text, String field) {
    List<byte[]> ders = blocks(text, "CERTIFICATE", field);
    if (ders.isEmpty()) {
      throw new InvalidInputException(field, "holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END"
          + " CERTIFICATE-----)");
    }
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory f = CertificateFactory.getInstance("X.509");
      for (int i = 0; i < ders.size(); i++) {
        try {
          out.add((X509Certificate) f.generateCertificate(new ByteArrayInputStream(ders.get(i))));
        } catch (CertificateException e) {
          throw new InvalidInputException(field, "certificate " + (i + 1) + " is not an X.509 certificate");
        }
      }
    } catch (CertificateException e) {
      throw new IllegalStateException("no X.509 certificate factory in this JVM", e);
    }
    return out;
  }

  /** The one {@code PRIVATE KEY} (PKCS #8, unencrypted) block, RSA, EC or Ed25519. */
  static PrivateKey privateKey(String text, String field) {
    if (text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")
        || text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
      throw new InvalidInputException(field, "give the key unencrypted in PKCS #8 form (-----BEGIN PRIVATE KEY-----);"
          + " convert it with: openssl pkcs8 -topk8 -nocrypt -in key.pem");
    }
    List<byte[]> ders = blocks(text, "PRIVATE KEY", field);
    if (ders.size() != 1) {
      throw new InvalidInputException(field, "must hold exactly one PEM private key (-----BEGIN PRIVATE KEY-----),"
          + " holds " + ders.size());
    }
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(ders.getFirst()));
      } catch (InvalidKeySpecException e) {
        // another algorithm
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("no " + algorithm + " key factory in this JVM", e);
      }
    }
    throw new InvalidInputException(field, "is not an RSA, EC or Ed25519 private key");
  }
}
