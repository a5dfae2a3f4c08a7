package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The SSRF guard, at validation and at delivery. */
class SsrfTest {
  @TempDir Path dir;

  /** Names resolved without DNS: a fixed table, anything else unknown. */
  static TargetPolicy.Resolver table(Map<String, String> names) {
    return host -> {
      String ip = names.get(host);
      if (ip != null) {
        return new InetAddress[] {InetAddress.getByName(ip)};
      }
      if (host.matches("[0-9.]+") || host.contains(":")) {
        return InetAddress.getAllByName(host); // a literal
      }
      throw new UnknownHostException(host);
    };
  }

  private static final TargetPolicy.Resolver NAMES = table(Map.of(
      "internal.test", "10.1.2.3",
      "public.test", "93.184.216.34",
      "meta.test", "169.254.169.254"));

  private static HttpChannel.Builder channel() {
    return HttpChannel.builder().resolver(NAMES);
  }

  private static InvalidInputException refusal(HttpChannel http, String url) {
    try {
      http.validateTarget(url);
    } catch (InvalidInputException e) {
      return e;
    }
    throw new AssertionError(url + " was accepted");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "http://127.0.0.1/hook          | a loopback address 127.0.0.1",
      "http://127.9.9.9:8080/         | a loopback address 127.9.9.9",
      "http://localhost:8080/         | target host 'localhost' names a loopback address",
      "http://api.localhost/          | target host 'api.localhost' names a loopback address",
      "http://[::1]/                  | a loopback address",
      "http://10.1.2.3/               | a private address 10.1.2.3",
      "http://172.16.0.1/             | a private address 172.16.0.1",
      "http://172.31.255.255/         | a private address 172.31.255.255",
      "http://192.168.1.1/            | a private address 192.168.1.1",
      "http://internal.test/hook      | a private address 10.1.2.3",
      "http://[fc00::1]/              | a private address",
      "http://[fd12:3456::1]/         | a private address",
      "http://[::ffff:10.0.0.1]/      | a private address 10.0.0.1",
      "http://[::ffff:0:a00:1]/       | a private address",
      "http://[::ffff:0:7f00:1]/      | a loopback address",
      "http://[::ffff:0:a9fe:a9fe]/   | a cloud metadata address",
      "http://[64:ff9b::a00:1]/       | a private address",
      "http://169.254.1.1/            | a link-local address 169.254.1.1",
      "http://[fe80::1]/              | a link-local address",
      "http://169.254.169.254/latest  | a cloud metadata address 169.254.169.254",
      "http://meta.test/              | a cloud metadata address 169.254.169.254",
      "http://[fd00:ec2::254]/        | a cloud metadata address",
      "http://metadata.google.internal/ | names a cloud metadata address",
      "http://0.0.0.0:9000/           | an unspecified address 0.0.0.0",
      "http://[::]/                   | an unspecified address",
      "http://224.0.0.1/              | a multicast address 224.0.0.1",
      "http://[ff02::1]/              | a multicast address",
      "http://100.64.0.1/             | a reserved or shared (non-internet) address 100.64.0.1",
  })
  void internalTargetsAreRefusedWithTheirReason(String url, String reason) {
    HttpChannel http = channel().build();
    InvalidInputException e = refusal(http, url);
    assertThat(e.field()).isEqualTo("target");
    assertThat(e.reason()).contains(reason).contains("server-side request forgery");
    http.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "ftp://example.com/x            | must use http or https, not ftp",
      "/relative/path                 | must be an absolute http or https URL",
      "example.com/hook               | must be an absolute http or https URL",
      "http://user:pw@example.com/    | must not contain user info",
      "http://exa_mple.com/           | has no valid host (host names may not contain '_')",
      "http:///nohost                 | has no valid host",
      "http://example.com/#frag       | must not have a fragment",
      "http://exa mple.com/           | is not a URL",
      "http://[fe80::1%eth0]/         | has an IPv6 zone id",
      "http://[fe80::1%25eth0]:8080/  | has an IPv6 zone id",
  })
  void malformedTargetsAreRefused(String url, String reason) {
    HttpChannel http = channel().build();
    assertThat(refusal(http, url).reason()).contains(reason);
    http.close();
  }

  @Test
  void publicTargetsAndNamesDnsDoesNotKnowYetAreAccepted() {
    try (HttpChannel http = channel().build()) {
      assertThatCode(() -> http.validateTarget("https://93.184.216.34/hook")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("https://public.test:8443/x?y=1")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("https://[2606:2800:220:1::]/")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("https://not-yet.test/")).doesNotThrowAnyException();
    }
  }

  @Test
  void privateNetworksCanBeAllowedButMetadataAndMulticastNeedTheAllowList() {
    try (HttpChannel http = channel().allowPrivateNetworks(true).build()) {
      for (String ok : new String[] {"http://127.0.0.1/", "http://localhost/", "http://10.1.2.3/",
          "http://internal.test/", "http://[fe80::1]/", "http://[fd12::1]/", "http://100.64.0.1/"}) {
        assertThatCode(() -> http.validateTarget(ok)).as(ok).doesNotThrowAnyException();
      }
      assertThat(refusal(http, "http://169.254.169.254/").reason()).contains("cloud metadata");
      assertThat(refusal(http, "http://224.0.0.1/").reason()).contains("multicast");
    }
    try (HttpChannel http = channel().allow("10.0.0.0/8", "169.254.169.254", "*.corp.test").build()) {
      assertThatCode(() -> http.validateTarget("http://10.200.0.1/")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("http://internal.test/")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("http://169.254.169.254/")).doesNotThrowAnyException();
      assertThatCode(() -> http.validateTarget("http://hooks.corp.test/")).doesNotThrowAnyException();
      assertThat(refusal(http, "http://192.168.1.1/").reason()).contains("private address 192.168.1.1")
          .contains("allowPrivateNetworks(true) or allow(\"192.168.1.1\")");
      assertThat(refusal(http, "http://127.0.0.1/").reason()).contains("loopback");
    }
    try (HttpChannel http = channel().allow("internal.test").build()) {
      assertThatCode(() -> http.validateTarget("http://internal.test/")).doesNotThrowAnyException();
      assertThat(refusal(http, "http://10.1.2.3/").reason()).contains("private");
    }
    assertThatThrownBy(() -> HttpChannel.builder().allow("10.0.0.0/33").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("allow"));
  }

  @Test
  void aDefinitionWithAnInternalTargetCannotBeSaved() {
    try (HttpChannel http = channel().build()) {
      assertThatThrownBy(() -> Herald.builder()
          .h2File(dir.resolve("herald"))
          .channel(http)
          .define(NoticeDefinition.builder("cb").channel("http", "http://169.254.169.254/latest/meta-data").build())
          .build())
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("target");
            assertThat(e.reason()).contains("cloud metadata address 169.254.169.254");
          });
    }
  }

  @Test
  void aNameThatResolvesToAnInternalAddressAtDeliveryIsRefusedWithoutARequest() throws Exception {
    // DNS rebinding: public when the definition is saved, loopback when the notice is delivered.
    AtomicInteger lookups = new AtomicInteger();
    TargetPolicy.Resolver rebinding = host -> new InetAddress[] {
        InetAddress.getByName(lookups.incrementAndGet() == 1 ? "93.184.216.34" : "127.0.0.1")};
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().resolver(rebinding).clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("cb").channel("http", "http://rebind.test:" + receiver.port() + "/")
                .build())
            .build()) {
      Notice n = herald.enqueue("cb", "{}");
      new ManualRunner(herald, clock).runDue();

      Notice dead = herald.operations().find(n.id()).orElseThrow().notice();
      assertThat(dead.status()).isEqualTo(NoticeStatus.DEAD);
      assertThat(dead.lastError())
          .startsWith("target resolves to a loopback address 127.0.0.1; refused to prevent server-side request forgery")
          .contains("(no request sent)");
      assertThat(lookups).hasValue(2);
      assertThat(receiver.count()).isZero();
    }
  }

  @Test
  void anAllowedInternalTargetIsDeliveredToAfterTheSameCheck() throws Exception {
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().allow("127.0.0.1/32").clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("cb").channel("http", receiver.url("/")).build())
            .build()) {
      Notice n = herald.enqueue("cb", "{}");
      new ManualRunner(herald, clock).runDue();
      assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(receiver.count()).isEqualTo(1);
    }
  }

  @Test
  void hostNameAllowEntriesKeepTheMetadataCheck() {
    TargetPolicy.Resolver names = table(Map.of(
        "hooks.internal.test", "10.1.2.3",
        "metadata.internal.test", "169.254.169.254",
        "metadata.google.internal", "169.254.169.254"));
    try (HttpChannel http = HttpChannel.builder().resolver(names).allow("*.internal.test", "*.internal").build()) {
      assertThatCode(() -> http.validateTarget("http://hooks.internal.test/")).doesNotThrowAnyException();
      assertThat(refusal(http, "http://metadata.internal.test/").reason())
          .contains("a cloud metadata address 169.254.169.254");
      assertThat(refusal(http, "http://metadata.google.internal/").reason())
          .contains("target host 'metadata.google.internal' names a cloud metadata address");
      assertThat(refusal(http, "http://10.1.2.3/").reason()).as("the allowed name, not its address")
          .contains("a private address 10.1.2.3");
    }
  }

  /**
   * DNS rebinding through the host's spelling: the resolver answers each query differently (an allowed
   * address, then the loopback address the receiver listens on, in turn), and the target is written in
   * mixed case. The client connects to the very answer the guard checked, so the receiver is never
   * reached: an attempt is either refused (the loopback answer) or connects to the allowed address,
   * where nothing listens.
   */
  @Test
  void theAddressCheckedIsTheAddressConnectedToWhateverTheNextAnswer() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    AtomicInteger queries = new AtomicInteger();
    TargetPolicy.Resolver rebinding = host -> {
      asked.add(host);
      return new InetAddress[] {InetAddress.getByName(queries.incrementAndGet() % 2 == 1 ? "127.0.0.2" : "127.0.0.1")};
    };
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().resolver(rebinding).allow("127.0.0.2").clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("cb").channel("http", "http://ReBind.Example.TEST:" + receiver.port() + "/")
                .retry("1s").build())
            .build()) {
      ManualRunner runner = new ManualRunner(herald, clock);
      List<Notice> notices = List.of(herald.enqueue("cb", "{}"), herald.enqueue("cb", "{}"));
      runner.runDue();
      clock.advance(java.time.Duration.ofSeconds(2));
      runner.runDue();

      assertThat(receiver.count()).as("requests that reached the loopback receiver").isZero();
      assertThat(asked).as("one lower-case spelling, asked once per connection").containsOnly("rebind.example.test");
      List<String> errors = notices.stream()
          .flatMap(n -> herald.operations().find(n.id()).orElseThrow().attempts().stream())
          .map(a -> a.detail().lines().findFirst().orElse("")).toList();
      assertThat(errors).anySatisfy(e -> assertThat(e)
          .startsWith("target resolves to a loopback address 127.0.0.1; refused to prevent server-side request forgery"));
      assertThat(errors).anySatisfy(e -> assertThat(e).startsWith("could not connect to http://rebind.example.test:"));
    }
  }

  /** The name exists only in the guard's resolver: delivering to it shows the client connects to the guard's answer. */
  @Test
  void aMixedCaseNameIsDeliveredToTheAddressTheGuardResolved() throws Exception {
    SettableClock clock = SettableClock.startingNow();
    try (Receiver receiver = new Receiver();
        HttpChannel http = HttpChannel.builder().resolver(table(Map.of("hooks.example.test", "127.0.0.1")))
            .allow("127.0.0.1").clock(clock).build();
        Herald herald = Herald.builder()
            .h2File(dir.resolve("herald"))
            .clock(clock)
            .channel(http)
            .define(NoticeDefinition.builder("cb").channel("http", "https://placeholder.invalid/").build())
            .build()) {
      Notice n = herald.enqueue(dev.herald.NoticeRequest.of("cb", "{}")
          .target("http://Hooks.Example.Test:" + receiver.port() + "/x"));
      new ManualRunner(herald, clock).runDue();
      assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(receiver.requests).singleElement().satisfies(r -> assertThat(r.path()).isEqualTo("/x"));
    }
  }
}
