package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.herald.Attempt;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventRequest;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Endpoint credentials against real servers on loopback: mutual TLS with a client certificate per
 * endpoint (PEM or PKCS #12) verified by a TLS receiver that demands one, OAuth 2.0 client-credentials
 * tokens from a real token endpoint (fetched, cached, refreshed before expiry and after a 401), and an
 * egress proxy.
 */
class EndpointCredentialsTest {
  @TempDir Path dir;

  private final SettableClock clock = SettableClock.startingNow();
  private Herald herald;
  private ManualRunner runner;
  private final List<AutoCloseable> servers = new CopyOnWriteArrayList<>();

  private void start(HttpChannel http) {
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).channel(http).build();
    runner = new ManualRunner(herald, clock);
    herald.events().saveType(EventType.of("invoice.issued", null, null));
  }

  @AfterEach
  void close() throws Exception {
    if (herald != null) {
      herald.close();
    }
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private static Attempt lastAttempt(Herald herald, PublishedEvent e, String endpoint) {
    java.util.UUID id = e.deliveries().stream().filter(d -> d.endpointId().equals(endpoint)).findFirst().orElseThrow()
        .noticeId();
    List<Attempt> attempts = herald.operations().find(id).orElseThrow().attempts();
    return attempts.getLast();
  }

  // ------------------------------------------------------------------------------------ mutual TLS

  /** A TLS receiver that demands a client certificate signed by the client CA and records who presented one. */
  private record TlsReceiver(HttpsServer server, List<String> clients) implements AutoCloseable {
    static TlsReceiver start(TestCertificates.Issued serverCert, TestCertificates.Issued clientCa) throws Exception {
      HttpsServer s = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      s.setHttpsConfigurator(new HttpsConfigurator(TestCertificates.serverContext(serverCert, clientCa)) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters p = getSSLContext().getDefaultSSLParameters();
          p.setNeedClientAuth(true);
          params.setSSLParameters(p);
        }
      });
      List<String> clients = new CopyOnWriteArrayList<>();
      s.createContext("/", ex -> {
        clients.add(((HttpsExchange) ex).getSSLSession().getPeerPrincipal().getName());
        answer(ex, 200, "ok");
      });
      s.start();
      return new TlsReceiver(s, clients);
    }

    String url() {
      return "https://127.0.0.1:" + server.getAddress().getPort() + "/in";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Test
  void eachEndpointPresentsItsOwnClientCertificateToAReceiverThatDemandsOne() throws Exception {
    TestCertificates pki = new TestCertificates("Partner CA");
    TestCertificates rogue = new TestCertificates("Rogue CA");
    TlsReceiver receiver = TlsReceiver.start(pki.issue("receiver", true), pki.ca);
    servers.add(receiver);
    HttpChannel http = HttpChannel.builder().allow("127.0.0.1").clock(clock).build();
    start(http);
    TestCertificates.Issued acme = pki.issue("acme", false);
    TestCertificates.Issued globex = pki.issue("globex", false);
    String ca = pki.ca.certificatePem();
    herald.events().saveEndpoint(EventEndpoint.builder("acme").url(receiver.url()).subscribe("invoice.issued")
        .clientCertificate(acme.certificatePem(), acme.keyPem()).trustedCertificates(ca).build());
    herald.events().saveEndpoint(EventEndpoint.builder("globex").url(receiver.url()).subscribe("invoice.issued")
        .clientKeyStore(Base64.getDecoder().decode(globex.pkcs12Base64("store-pw")), "store-pw")
        .trustedCertificates(ca).build());
    herald.events().saveEndpoint(EventEndpoint.builder("anonymous").url(receiver.url()).subscribe("invoice.issued")
        .trustedCertificates(ca).retry("1h").build());
    TestCertificates.Issued intruder = rogue.issue("intruder", false);
    herald.events().saveEndpoint(EventEndpoint.builder("intruder").url(receiver.url()).subscribe("invoice.issued")
        .clientCertificate(intruder.certificatePem(), intruder.keyPem()).trustedCertificates(ca).retry("1h").build());

    PublishedEvent e = herald.events().publish(EventRequest.of("invoice.issued", "{\"invoice\": 1}"));
    runner.runDue();

    assertThat(receiver.clients()).containsExactlyInAnyOrder("CN=acme", "CN=globex");
    PublishedEvent seen = herald.events().find(null, e.event().id()).orElseThrow();
    assertThat(seen.deliveries()).filteredOn(d -> d.status() == NoticeStatus.SUCCEEDED)
        .extracting(d -> d.endpointId()).containsExactlyInAnyOrder("acme", "globex");
    assertThat(lastAttempt(herald, e, "acme").detail()).contains("TLS client certificate: CN=acme");
    assertThat(lastAttempt(herald, e, "anonymous").outcome()).isEqualTo(dev.herald.DeliveryResult.Outcome.RETRY);
    assertThat(lastAttempt(herald, e, "intruder").outcome()).isEqualTo(dev.herald.DeliveryResult.Outcome.RETRY);
    assertThat(http.tlsClients()).as("one client per identity").isEqualTo(4);

    // a second event reuses the identities' clients
    herald.events().publish(EventRequest.of("invoice.issued", "{\"invoice\": 2}"));
    runner.runDue();
    assertThat(receiver.clients()).hasSize(4);
    assertThat(http.tlsClients()).isEqualTo(4);
  }

  @Test
  void aBadCertificateOrKeyIsRefusedAtSaveNamingTheOptionNeverShowingIt() throws Exception {
    start(HttpChannel.builder().allow("127.0.0.1").clock(clock).build());
    TestCertificates pki = new TestCertificates("CA");
    TestCertificates.Issued acme = pki.issue("acme", false);
    TestCertificates.Issued other = new TestCertificates("Other").issue("other", false);
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://127.0.0.1/in")
        .option("tls.certificate", acme.certificatePem().replaceAll("\\R", " ")).build()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            x -> assertThat(x.field()).isEqualTo("options.tls.secret-key"));
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://127.0.0.1/in")
        .clientCertificate(acme.certificatePem(), "-----BEGIN PRIVATE KEY----- bm90IGEga2V5 -----END PRIVATE KEY-----")
        .build()))
        .isInstanceOfSatisfying(InvalidInputException.class, x -> {
          assertThat(x.field()).isEqualTo("options.tls.secret-key");
          assertThat(x.getMessage()).doesNotContain("bm90IGEga2V5");
        });
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://127.0.0.1/in")
        .clientKeyStore(Base64.getDecoder().decode(acme.pkcs12Base64("right")), "wrong").build()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            x -> assertThat(x.field()).isEqualTo("options.tls.secret-key-store"));
    assertThat(herald.events().endpoints(null)).isEmpty();
    assertThat(other).isNotNull();
    assertThat(HttpChannel.isSecretOption("tls.secret-key")).isTrue();
    assertThat(HttpChannel.isSecretOption("tls.certificate")).isFalse();
  }

  // ------------------------------------------------------------------------------------ OAuth 2.0

  /** A token endpoint: client credentials by HTTP Basic, tokens t-1, t-2, ... valid for 60 s. */
  private static final class TokenEndpoint implements AutoCloseable {
    final HttpServer server;
    final AtomicInteger issued = new AtomicInteger();
    final List<String> forms = new CopyOnWriteArrayList<>();
    volatile boolean refuse;

    TokenEndpoint() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/oauth/token", ex -> {
        String form = read(ex);
        forms.add(form);
        String expected = "Basic " + Base64.getEncoder().encodeToString("acme-client:s3cr%21t".getBytes(StandardCharsets.UTF_8));
        if (refuse || !expected.equals(ex.getRequestHeaders().getFirst("Authorization"))
            || !form.contains("grant_type=client_credentials")) {
          answer(ex, 401, "{\"error\":\"invalid_client\"}");
          return;
        }
        answer(ex, 200, "{\"access_token\":\"t-" + issued.incrementAndGet()
            + "\",\"token_type\":\"Bearer\",\"expires_in\":60}");
      });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/oauth/token";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Test
  void aBearerTokenIsFetchedCachedRefreshedBeforeExpiryAndAfterA401() throws Exception {
    TokenEndpoint tokens = new TokenEndpoint();
    servers.add(tokens);
    Receiver receiver = new Receiver();
    servers.add(receiver);
    start(HttpChannel.builder().allow("127.0.0.1").clock(clock).build());
    herald.events().saveEndpoint(EventEndpoint.builder("acme").url(receiver.url("/in")).subscribe("invoice.issued")
        .oauth2(tokens.url(), "acme-client", "s3cr!t", "invoices:write").retry("1s")
        .option("full-success-log", "true").build());

    PublishedEvent first = herald.events().publish(EventRequest.of("invoice.issued", "{\"n\": 1}"));
    herald.events().publish(EventRequest.of("invoice.issued", "{\"n\": 2}"));
    runner.runDue();
    assertThat(receiver.requests).extracting(r -> r.header("authorization")).containsExactly("Bearer t-1", "Bearer t-1");
    assertThat(tokens.issued).as("one token for both").hasValue(1);
    assertThat(tokens.forms.getFirst()).contains("scope=invoices%3Awrite");
    assertThat(lastAttempt(herald, first, "acme").detail()).contains("> authorization: Bearer ****")
        .doesNotContain("t-1").doesNotContain("s3cr");

    clock.advance(Duration.ofSeconds(55)); // within the token's last tenth: a new one
    herald.events().publish(EventRequest.of("invoice.issued", "{\"n\": 3}"));
    runner.runDue();
    assertThat(receiver.requests.getLast().header("authorization")).isEqualTo("Bearer t-2");

    receiver.then(Receiver.Response.status(401)); // the receiver revoked t-2
    PublishedEvent revoked = herald.events().publish(EventRequest.of("invoice.issued", "{\"n\": 4}"));
    runner.runDue();
    clock.advance(Duration.ofSeconds(2));
    runner.runDue();
    assertThat(receiver.requests.getLast().header("authorization")).isEqualTo("Bearer t-3");
    assertThat(herald.events().find(null, revoked.event().id()).orElseThrow().taken()).isEqualTo(1);

    tokens.refuse = true;
    receiver.requests.clear();
    clock.advance(Duration.ofMinutes(5));
    PublishedEvent refused = herald.events().publish(EventRequest.of("invoice.issued", "{\"n\": 5}"));
    runner.runDue();
    assertThat(receiver.requests).as("no token, no request").isEmpty();
    Attempt a = lastAttempt(herald, refused, "acme");
    assertThat(a.outcome()).isEqualTo(dev.herald.DeliveryResult.Outcome.RETRY);
    assertThat(a.detail()).contains("OAuth 2.0 token endpoint").contains("HTTP 401").contains("invalid_client")
        .contains("(no request sent)");
  }

  @Test
  void theTokenUrlIsCheckedByTheSsrfGuardAndTheSettingsGoTogether() {
    start(HttpChannel.builder().clock(clock).build());
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://acme.example/in")
        .oauth2("http://169.254.169.254/token", "id", "secret", null).build()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            x -> assertThat(x.field()).isEqualTo("options.oauth2.url"));
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://acme.example/in")
        .option("oauth2.url", "https://auth.acme.example/token").build()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            x -> assertThat(x.field()).isEqualTo("options.oauth2.client-id"));
  }

  // ------------------------------------------------------------------------------------ proxy

  /**
   * No proxy of the channel's own: the JVM's. An application's own default selector is asked per
   * request; the JDK's is asked only where its settings name a proxy (it never proxies loopback
   * names, so its settings are checked here, not a request through them); with none, no selector.
   */
  @Test
  void withoutAProxyOfItsOwnTheChannelUsesTheJvmProxySelector() throws Exception {
    assertThat(HttpTransport.jvmProxies()).as("nothing set: no selector asked per request").isNull();
    try {
      System.setProperty("https.proxyHost", "proxy.internal");
      assertThat(HttpTransport.jvmProxies()).isSameAs(java.net.ProxySelector.getDefault());
    } finally {
      System.clearProperty("https.proxyHost");
    }
    List<String> proxied = new CopyOnWriteArrayList<>();
    HttpServer proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext("/", ex -> {
      proxied.add(ex.getRequestMethod() + " " + ex.getRequestURI());
      answer(ex, 200, "");
    });
    proxy.start();
    servers.add(() -> proxy.stop(0));
    java.net.ProxySelector jdk = java.net.ProxySelector.getDefault();
    try {
      java.net.ProxySelector.setDefault(EgressProxy.of("http://127.0.0.1:" + proxy.getAddress().getPort(), List.of()));
      HttpChannel http = HttpChannel.builder().allow("127.0.0.1", "localhost").clock(clock).build();
      start(http);
    } finally {
      java.net.ProxySelector.setDefault(jdk);
    }
    herald.definitions().save(NoticeDefinition.builder("via-jvm-proxy").channel("http", "http://localhost:9/hooks")
        .build());
    herald.enqueue("via-jvm-proxy", "{}");
    runner.runDue();
    assertThat(proxied).containsExactly("POST http://localhost:9/hooks");
  }

  @Test
  void everyRequestGoesThroughTheEgressProxyButThoseToExcludedHosts() throws Exception {
    List<String> proxied = new CopyOnWriteArrayList<>();
    HttpServer proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext("/", ex -> {
      proxied.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " " + ex.getRequestHeaders().getFirst("webhook-id"));
      answer(ex, 200, "");
    });
    proxy.start();
    servers.add(() -> proxy.stop(0));
    Receiver direct = new Receiver();
    servers.add(direct);
    HttpChannel http = HttpChannel.builder().allow("127.0.0.1", "localhost").clock(clock)
        .proxy("http://127.0.0.1:" + proxy.getAddress().getPort(), List.of("127.0.0.1")).build();
    start(http);
    // localhost goes through the proxy (which answers for it); 127.0.0.1 is excluded and called directly
    herald.definitions().save(NoticeDefinition.builder("via-proxy").channel("http", "http://localhost:9/hooks").build());
    herald.definitions().save(NoticeDefinition.builder("direct").channel("http", direct.url("/in")).build());
    var viaProxy = herald.enqueue("via-proxy", "{}");
    herald.enqueue("direct", "{}");
    runner.runDue();
    assertThat(proxied).containsExactly("POST http://localhost:9/hooks " + viaProxy.id());
    assertThat(direct.requests).hasSize(1);
    assertThatThrownBy(() -> HttpChannel.builder().proxy("socks://proxy:1080", List.of()))
        .isInstanceOfSatisfying(InvalidInputException.class, x -> assertThat(x.field()).isEqualTo("proxy"));
  }

  // ------------------------------------------------------------------------------------ helpers

  private static String read(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void answer(HttpExchange ex, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
    ex.close();
  }
}
