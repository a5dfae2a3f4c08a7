package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Delivery;
import dev.herald.testing.SettableClock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One-off targets do not pile up endpoint state: quiet endpoints are evicted beyond a soft cap or
 * once idle, over real HTTP; an open circuit and a request in flight keep theirs.
 */
class EndpointEvictionTest {
  private static final Duration IDLE = Duration.ofMinutes(10);

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final HttpChannel http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock)
      .endpointEviction(5, IDLE).build();
  private final NoticeDefinition definition = NoticeDefinition.builder("hook").channel("http", "http://127.0.0.1/").build();
  private final List<Receiver> receivers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    http.close();
    receivers.forEach(Receiver::close);
  }

  private Receiver receiver() throws Exception {
    Receiver r = new Receiver();
    receivers.add(r);
    return r;
  }

  /** Distinct loopback ports nothing listens on (taken together, then freed). */
  private static List<Integer> closedPorts(int n) throws Exception {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  private CompletableFuture<DeliveryResult> deliver(String url) {
    Instant t = clock.instant();
    Notice n = new Notice(UUID.randomUUID(), "hook", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t,
        null, url);
    return http.deliver(new Delivery(n, definition, 1)).toCompletableFuture();
  }

  private DeliveryResult deliverAndWait(String url) throws Exception {
    return deliver(url).get(10, TimeUnit.SECONDS);
  }

  @Test
  void quietEndpointsAreEvictedButAnOpenCircuitAndARequestInFlightKeepTheirState() throws Exception {
    Receiver limited = receiver().respond(r -> Receiver.Response.status(429).header("Retry-After", "3600"));
    assertThat(deliverAndWait(limited.url("/")).retryAfter()).isEqualTo(Duration.ofHours(1));
    CountDownLatch release = new CountDownLatch(1);
    Receiver hung = receiver().respond(r -> {
      release.await(30, TimeUnit.SECONDS);
      return Receiver.Response.ok("");
    });
    CompletableFuture<DeliveryResult> inFlight = deliver(hung.url("/"));

    // healthy one-off endpoints: over the soft cap of 5 the quiet ones go at once
    int most = 0;
    for (int i = 0; i < 20; i++) {
      assertThat(deliverAndWait(receiver().url("/")).isDelivered()).isTrue();
      most = Math.max(most, http.endpoints().size());
    }
    assertThat(most).isLessThanOrEqualTo(6);

    // failing one-off endpoints (connection refused) keep their recent failure, until idle
    for (int port : closedPorts(30)) {
      DeliveryResult r = deliverAndWait("http://127.0.0.1:" + port + "/");
      assertThat(r.outcome()).as(r.detail()).isEqualTo(DeliveryResult.Outcome.RETRY);
    }
    assertThat(http.endpoints().size()).isGreaterThanOrEqualTo(30);

    // A request's slot is given back just after its result completes: let the last ones land first.
    String hungEndpoint = "http://127.0.0.1:" + hung.port();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> http.endpoints().stream()
        .allMatch(e -> e.inFlight() == 0 || e.endpoint().equals(hungEndpoint)));
    clock.advance(IDLE);
    deliverAndWait(receiver().url("/")); // a new endpoint: the idle ones are evicted
    assertThat(http.endpoints()).extracting(EndpointStatus::endpoint)
        .containsExactlyInAnyOrder("http://127.0.0.1:" + limited.port(), "http://127.0.0.1:" + hung.port(),
            "http://127.0.0.1:" + receivers.getLast().port());
    assertThat(http.endpoint(limited.url("/")).orElseThrow().circuit()).isEqualTo(EndpointStatus.Circuit.OPEN);
    assertThat(http.endpoint(hung.url("/")).orElseThrow().inFlight()).isEqualTo(1);

    release.countDown();
    assertThat(inFlight.get(10, TimeUnit.SECONDS).isDelivered()).isTrue();
  }
}
