package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A definition's (an endpoint's) own TLS settings: a client certificate and key for mutual TLS, from
 * PEM ({@code tls.certificate} with {@code tls.secret-key}) or a PKCS #12 key store ({@code
 * tls.secret-key-store}, base64, with {@code tls.key-store-password}); and the certificate authorities
 * to trust for its receiver ({@code tls.ca}, PEM) instead of the JVM's. Each identity gets an HTTP
 * client of its own, so connections made with one client certificate are never reused for another.
 *
 * @param fingerprint SHA-256 of the settings, naming the client they need
 */
record TlsIdentity(String fingerprint, SSLContext sslContext, String subject) {
  static final String CERTIFICATE = "tls.certificate";
  static final String SECRET_KEY = "tls.secret-key";
  static final String SECRET_KEY_STORE = "tls.secret-key-store";
  static final String KEY_STORE_PASSWORD = "tls.key-store-password";
  static final String CA = "tls.ca";
  static final List<String> OPTIONS = List.of(CERTIFICATE, SECRET_KEY, SECRET_KEY_STORE, KEY_STORE_PASSWORD, CA);
  private static final char[] NO_PASSWORD = new char[0];

  /**
   * The identity a definition's options describe, or null when it sets none.
   *
   * @param open opens a secret option's value (sealed at rest by a server); the identity for plain values
   * @throws InvalidInputException naming the option (never showing its value)
   */
  static TlsIdentity of(NoticeDefinition d, UnaryOperator<String> open) {
    String cert = d.option(CERTIFICATE, null);
    String key = d.option(SECRET_KEY, null);
    String store = d.option(SECRET_KEY_STORE, null);
    String password = d.option(KEY_STORE_PASSWORD, null);
    String ca = d.option(CA, null);
    if (cert == null && key == null && store == null && password == null && ca == null) {
      return null;
    }
    if (store != null && (cert != null || key != null)) {
      throw new InvalidInputException("options." + SECRET_KEY_STORE, "give either a key store or "
          + CERTIFICATE + " with " + SECRET_KEY + ", not both");
    }
    if ((cert == null) != (key == null)) {
      throw new InvalidInputException("options." + (cert == null ? CERTIFICATE : SECRET_KEY), "is required with options."
          + (cert == null ? SECRET_KEY : CERTIFICATE) + ": the client certificate and its private key go together");
    }
    if (password != null && store == null) {
      throw new InvalidInputException("options." + KEY_STORE_PASSWORD, "goes with options." + SECRET_KEY_STORE);
    }
    try {
      KeyStore identity = null;
      char[] pass = password == null ? NO_PASSWORD : open.apply(password).toCharArray();
      String subject = null;
      if (cert != null) {
        List<X509Certificate> chain = Pem.certificates(cert, "options." + CERTIFICATE);
        PrivateKey privateKey = Pem.privateKey(open.apply(key), "options." + SECRET_KEY);
        if (!chain.getFirst().getPublicKey().getAlgorithm().equals(privateKey.getAlgorithm())) {
          throw new InvalidInputException("options." + SECRET_KEY, "is a " + privateKey.getAlgorithm()
              + " key, but the certificate's key is " + chain.getFirst().getPublicKey().getAlgorithm());
        }
        identity = KeyStore.getInstance("PKCS12");
        identity.load(null, null);
        identity.setKeyEntry("client", privateKey, NO_PASSWORD, chain.toArray(X509Certificate[]::new));
        subject = chain.getFirst().getSubjectX500Principal().getName();
      } else if (store != null) {
        identity = KeyStore.getInstance("PKCS12");
        byte[] bytes;
        try {
          bytes = Base64.getMimeDecoder().decode(open.apply(store).replaceAll("\\s+", ""));
        } catch (IllegalArgumentException e) {
          throw new InvalidInputException("options." + SECRET_KEY_STORE, "must be a PKCS #12 key store in base64");
        }
        try {
          identity.load(new ByteArrayInputStream(bytes), pass);
        } catch (IOException e) {
          throw new InvalidInputException("options." + SECRET_KEY_STORE, "cannot be read as a PKCS #12 key store with"
              + " this password (" + e.getClass().getSimpleName() + ")");
        }
        subject = subjectOf(identity);
      }
      KeyManagerFactory kmf = null;
      if (identity != null) {
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(identity, cert != null ? NO_PASSWORD : pass);
      }
      TrustManagerFactory tmf = null;
      if (ca != null) {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (X509Certificate c : Pem.certificates(ca, "options." + CA)) {
          trust.setCertificateEntry("ca-" + i++, c);
        }
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      return new TlsIdentity(fingerprint(cert, key, store, password, ca), context, subject);
    } catch (GeneralSecurityException | IOException e) {
      throw new InvalidInputException("options." + (store != null ? SECRET_KEY_STORE : cert != null ? SECRET_KEY : CA),
          "cannot make a TLS context of it: " + e.getClass().getSimpleName());
    }
  }

  private static String subjectOf(KeyStore store) throws GeneralSecurityException {
    for (String alias : java.util.Collections.list(store.aliases())) {
      if (store.isKeyEntry(alias) && store.getCertificate(alias) instanceof X509Certificate c) {
        return c.getSubjectX500Principal().getName();
      }
    }
    throw new InvalidInputException("options." + SECRET_KEY_STORE, "holds no private key with its certificate");
  }

  /** A digest of the settings as stored (sealed or not): equal settings share one client. */
  private static String fingerprint(String... parts) throws GeneralSecurityException {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (String p : parts) {
      sha.update((p == null ? "-" : p).getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
    }
    return HexFormat.of().formatHex(sha.digest(), 0, 16);
  }
}
