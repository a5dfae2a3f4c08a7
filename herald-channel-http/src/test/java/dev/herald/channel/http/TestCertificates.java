package dev.herald.channel.http;

import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates made for a test: a CA, and certificates it signs for a receiver (127.0.0.1) and for clients. */
final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  /** A key pair and its certificate chain (the leaf first). */
  record Issued(KeyPair keys, X509Certificate[] chain) {
    String certificatePem() {
      StringBuilder out = new StringBuilder();
      for (X509Certificate c : chain) {
        out.append(pem(c));
      }
      return out.toString();
    }

    String keyPem() {
      return pem(keys.getPrivate());
    }

    /** A PKCS #12 key store of the key and chain, in base64. */
    String pkcs12Base64(String password) throws Exception {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("key", keys.getPrivate(), password.toCharArray(), chain);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ks.store(out, password.toCharArray());
      return Base64.getEncoder().encodeToString(out.toByteArray());
    }
  }

  final Issued ca;

  TestCertificates(String caName) throws Exception {
    KeyPair keys = keyPair();
    X500Name name = new X500Name("CN=" + caName);
    X509v3CertificateBuilder b = builder(name, name, keys);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    this.ca = new Issued(keys, new X509Certificate[] {sign(b, keys.getPrivate())});
  }

  /** A certificate for {@code cn}, signed by the CA; with {@code loopback}, valid for 127.0.0.1 and localhost. */
  Issued issue(String cn, boolean loopback) throws Exception {
    KeyPair keys = keyPair();
    X509v3CertificateBuilder b = builder(new X500Name(ca.chain()[0].getSubjectX500Principal().getName()),
        new X500Name("CN=" + cn), keys);
    if (loopback) {
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
          new GeneralName(GeneralName.iPAddress, InetAddress.getLoopbackAddress().getHostAddress()),
          new GeneralName(GeneralName.dNSName, "localhost")}));
    }
    return new Issued(keys, new X509Certificate[] {sign(b, ca.keys().getPrivate()), ca.chain()[0]});
  }

  /** A server TLS context with {@code server}'s key that trusts clients signed by {@code clientCa}. */
  static SSLContext serverContext(Issued server, Issued clientCa) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("server", server.keys().getPrivate(), new char[0], server.chain());
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, new char[0]);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", clientCa.chain()[0]);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return c;
  }

  private static KeyPair keyPair() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(256);
    return g.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) throws Exception {
    return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
        .build(key)));
  }

  static String pem(Object o) {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o instanceof PrivateKey k ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null) : o);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return w.toString();
  }
}
