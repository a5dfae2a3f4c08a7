package dev.herald.channel.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every outcome of the AMQP channel against Qpid Broker-J speaking AMQP 0-9-1 in this JVM. */
@org.junit.jupiter.api.extension.ExtendWith(QpidBroker.Shared.class)
class AmqpChannelTest {
  static QpidBroker broker;
  static Connection admin;
  static com.rabbitmq.client.Channel ch;

  @TempDir Path dir;
  final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startBroker() throws Exception {
    broker = QpidBroker.shared();
    admin = broker.connect();
    ch = admin.createChannel();
    ch.exchangeDeclare("orders", BuiltinExchangeType.TOPIC, true);
    ch.queueDeclare("paid", true, false, false, null);
    ch.queueBind("paid", "orders", "order.paid");
    ch.queueDeclare("refunded", true, false, false, null);
    ch.queueBind("refunded", "orders", "order.refunded");
  }

  @AfterAll
  static void closeAdmin() throws Exception {
    admin.close();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    ch.queuePurge("paid");
    ch.queuePurge("refunded");
  }

  ManualRunner herald(AmqpChannel amqp, NoticeDefinition... definitions) {
    SettableClock clock = SettableClock.startingNow();
    Herald.Builder b = Herald.builder().h2File(dir.resolve("h" + toClose.size())).clock(clock).channel(amqp);
    for (NoticeDefinition d : definitions) {
      b.define(d);
    }
    Herald h = b.build();
    toClose.add(h);
    return new ManualRunner(h, clock);
  }

  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  static NoticeDefinition orderPaid(String target) {
    return NoticeDefinition.builder("order-paid").channel("amqp", target).retry("1m").build();
  }

  @Test
  void aConfirmedMessageIsDeliveredPersistentWithTheNoticeIdAndHeaders() throws Exception {
    ManualRunner runner = herald(AmqpChannel.builder().broker("main", broker.uri()).build(), orderPaid("orders/order.paid"));
    Herald h = (Herald) toClose.getLast();
    Notice n = h.enqueue(NoticeRequest.of("order-paid", "{\"order\":42}").traceparent(TRACEPARENT));
    runner.runDue();

    assertThat(h.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    GetResponse m = ch.basicGet("paid", true);
    assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":42}");
    assertThat(m.getProps().getMessageId()).isEqualTo(n.id().toString());
    assertThat(m.getProps().getDeliveryMode()).isEqualTo(2);
    assertThat(m.getProps().getContentType()).isEqualTo("application/json");
    assertThat(m.getProps().getHeaders()).containsEntry("x-herald-attempt", 1);
    assertThat(m.getProps().getHeaders().get("x-herald-definition")).hasToString("order-paid");
    assertThat(m.getProps().getHeaders().get("traceparent")).hasToString(TRACEPARENT);
  }

  /** {@code amqp://user:pass@host/}, as many examples write it, is the default vhost, not the empty one. */
  @Test
  void aBrokerUriEndingInASlashMeansTheDefaultVhost() throws Exception {
    assertThat(AmqpUri.factory(broker.uri() + "/", "uri").getVirtualHost()).isEqualTo("/");
    assertThat(AmqpUri.factory(broker.uri(), "uri").getVirtualHost()).isEqualTo("/");
    assertThat(AmqpUri.factory(broker.uri() + "/orders", "uri").getVirtualHost()).isEqualTo("orders");
    assertThat(AmqpUri.factory(broker.uri() + "/%2F", "uri").getVirtualHost()).isEqualTo("/");
    ManualRunner runner = herald(AmqpChannel.builder().broker("main", broker.uri() + "/").build(),
        orderPaid("orders/order.paid"));
    Herald h = (Herald) toClose.getLast();
    Notice n = h.enqueue("order-paid", "{\"order\":44}");
    runner.runDue();
    assertThat(h.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(ch.basicGet("paid", true).getBody()).asString().isEqualTo("{\"order\":44}");
    assertThatThrownBy(() -> AmqpChannel.builder().broker("main", "amqp://host/a/b"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("brokers.main")
        .hasMessageContaining("amqp://user:password@host:port/vhost");
  }

  @Test
  void aNoticesOwnTargetOverridesTheRoutingKey() throws Exception {
    ManualRunner runner = herald(AmqpChannel.builder().broker("main", broker.uri()).build(), orderPaid("orders/order.paid"));
    Herald h = (Herald) toClose.getLast();
    h.enqueue(NoticeRequest.of("order-paid", "{\"order\":43}").target("orders/order.refunded"));
    runner.runDue();

    assertThat(ch.basicGet("paid", true)).isNull();
    assertThat(ch.basicGet("refunded", true).getBody()).asString().isEqualTo("{\"order\":43}");
  }

  @Test
  void aMessageNoQueueTakesFailsForGoodSayingSo() {
    ManualRunner runner = herald(AmqpChannel.builder().broker("main", broker.uri()).build(), orderPaid("orders/order.lost"));
    Herald h = (Herald) toClose.getLast();
    Notice n = h.enqueue("order-paid", "{}");
    runner.runDue();

    NoticeDetail d = h.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().lastError()).contains("unroutable").contains("exchange 'orders' routing key 'order.lost'")
        .contains("312");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
  }

  @Test
  void noConfirmInTimeIsRetriedAndABrokerInTroubleDoesNotHoldUpAnother() throws Exception {
    FreezableProxy proxy = new FreezableProxy(broker.port());
    toClose.add(proxy);
    AmqpChannel amqp = AmqpChannel.builder()
        .broker("healthy", broker.uri())
        .broker("stuck", "amqp://guest:guest@127.0.0.1:" + proxy.port())
        .confirmTimeout(Duration.ofMillis(500))
        .build();
    NoticeDefinition viaStuck = NoticeDefinition.builder("via-stuck").channel("amqp", "orders/order.paid")
        .option("broker", "stuck").retry("1m").build();
    NoticeDefinition viaHealthy = NoticeDefinition.builder("via-healthy").channel("amqp", "orders/order.refunded")
        .option("broker", "healthy").retry("1m").build();
    ManualRunner runner = herald(amqp, viaStuck, viaHealthy);
    Herald h = (Herald) toClose.getLast();
    h.enqueue("via-stuck", "{\"warm\":1}");
    runner.runDue(); // connects through the proxy
    proxy.freeze();

    Notice stuck = h.enqueue("via-stuck", "{}");
    Notice healthy = h.enqueue("via-healthy", "{}");
    long started = System.nanoTime();
    runner.runDue();

    assertThat(h.operations().find(healthy.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    NoticeDetail d = h.operations().find(stuck.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().lastError()).contains("did not confirm").contains("PT0.5S");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(amqp.brokers()).containsEntry("healthy", true);
  }

  @Test
  void aMessageAFullQueueRefusesIsRetried() throws Exception {
    // Qpid's reject policy: a queue holding its maximum refuses further messages
    ch.queueDeclare("full", true, false, false, Map.of("qpid.max_count", 1, "qpid.policy_type", "reject"));
    ch.queueBind("full", "orders", "order.full");
    ch.basicPublish("orders", "order.full", null, "{}".getBytes(StandardCharsets.UTF_8));
    ManualRunner runner = herald(AmqpChannel.builder().broker("main", broker.uri()).build(), orderPaid("orders/order.full"));
    Herald h = (Herald) toClose.getLast();
    Notice n = h.enqueue("order-paid", "{}");
    runner.runDue();

    NoticeDetail d = h.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().lastError()).contains("returned").contains("506").contains("Maximum depth exceeded");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
  }

  @Test
  void aBrokerRestartedMidStreamLosesNothing() throws Exception {
    ch.queueDeclare("stream", true, false, false, null);
    ch.queueBind("stream", "orders", "order.stream");
    AmqpChannel amqp = AmqpChannel.builder().broker("main", broker.uri())
        .confirmTimeout(Duration.ofSeconds(2)).reconnectDelay(Duration.ofMillis(100)).build();
    Herald h = Herald.builder().h2File(dir.resolve("stream")).channel(amqp)
        .define(NoticeDefinition.builder("order-stream").channel("amqp", "orders/order.stream")
            .retry("200ms").unlimitedAttempts().build())
        .build().start();
    toClose.add(h);

    List<java.util.UUID> ids = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      ids.add(h.enqueue("order-stream", "{\"n\":" + i + "}").id());
      if (i == 40) {
        broker.restart(); // connections drop; unconfirmed messages are retried, confirmed ones are on disk
        admin = broker.connect();
        ch = admin.createChannel();
      }
      Thread.sleep(2);
    }

    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(ids).allSatisfy(id ->
            assertThat(h.operations().find(id).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED)));
    java.util.Set<String> received = new java.util.HashSet<>();
    GetResponse m;
    while ((m = ch.basicGet("stream", true)) != null) {
      received.add(m.getProps().getMessageId());
    }
    assertThat(received).containsAll(ids.stream().map(Object::toString).toList());
  }

  /**
   * An operator who stops the broker sees it DOWN at once (the connection's loss), with the failed
   * attempts counted, and UP again once the broker is back, found by the channel's own probe with no
   * notice to send.
   */
  @Test
  void aStoppedBrokerIsReportedDownWithItsFailedAttemptsAndUpAgainWithoutTraffic() throws Exception {
    AmqpChannel amqp = AmqpChannel.builder().broker("main", broker.uri() + "/")
        .reconnectDelay(Duration.ofMillis(100)).healthProbeInterval(Duration.ofMillis(100)).build();
    Herald h = Herald.builder().h2File(dir.resolve("outage")).channel(amqp)
        .define(NoticeDefinition.builder("order-paid").channel("amqp", "orders/order.paid").retry("200ms")
            .unlimitedAttempts().build())
        .build().start();
    toClose.add(h);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> amqp.peers().getFirst().state() == dev.herald.spi.PeerStatus.State.UP);
    dev.herald.spi.PeerStatus up = amqp.peers().getFirst();
    assertThat(up.channel()).isEqualTo("amqp");
    assertThat(up.kind()).isEqualTo(dev.herald.spi.PeerStatus.Kind.BROKER);
    assertThat(up.address()).isEqualTo("amqp://127.0.0.1:" + broker.port() + "/").doesNotContain("guest");

    broker.stop();
    try {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> amqp.peers().getFirst().state() == dev.herald.spi.PeerStatus.State.DOWN);
      Notice n = h.enqueue("order-paid", "{\"during\":\"outage\"}");
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> amqp.peers().getFirst().failures() >= 2);
      assertThat(amqp.peers().getFirst().lastError()).contains("broker 'main'");
      assertThat(h.operations().find(n.id()).orElseThrow().notice().status()).isNotEqualTo(NoticeStatus.SUCCEEDED);
      h.operations().cancel(n.id()); // the broker comes back with nothing to send: only the probe can see it
    } finally {
      broker.startAgain();
      admin = broker.connect();
      ch = admin.createChannel();
    }
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15))
        .until(() -> amqp.peers().getFirst().state() == dev.herald.spi.PeerStatus.State.UP);
    assertThat(amqp.peers().getFirst().failures()).isZero();
  }

  /**
   * A definition whose exchange is deleted while Herald publishes to it (the broker closes the AMQP
   * channel with 404 on the next publish, and refuses it on every later try) alongside a healthy
   * one on the same broker: the healthy notices are each delivered once at the first attempt, and
   * only the broken definition's attempts fail, naming its exchange.
   */
  @Test
  void anExchangeThatDoesNotExistDisturbsOnlyItsOwnDefinition() throws Exception {
    ch.queueDeclare("isolated", true, false, false, null);
    ch.queueBind("isolated", "orders", "order.isolated");
    ch.exchangeDeclare("vanishing", BuiltinExchangeType.DIRECT, true);
    ch.queueBind("isolated", "vanishing", "order.vanishing");
    Herald h = Herald.builder().h2File(dir.resolve("isolation"))
        .channel(AmqpChannel.builder().broker("main", broker.uri()).build())
        .define(NoticeDefinition.builder("healthy").channel("amqp", "orders/order.isolated").retry("1m").build())
        .define(NoticeDefinition.builder("broken").channel("amqp", "vanishing/order.vanishing").retry("1m").build())
        .build().start();
    toClose.add(h);
    Notice first = h.enqueue("broken", "{}"); // opens the exchange's channel while it exists
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
        h.operations().find(first.id()).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED);
    ch.basicGet("isolated", true);
    ch.exchangeDelete("vanishing");

    List<NoticeRequest> requests = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      requests.add(NoticeRequest.of("healthy", "{\"n\":" + i + "}"));
      requests.add(NoticeRequest.of("broken", "{\"n\":" + i + "}"));
    }
    List<Notice> notices = h.enqueueAll(requests);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(notices).allSatisfy(n -> assertThat(h.operations().find(n.id()).orElseThrow().attempts()).isNotEmpty()));
    for (Notice n : notices) {
      NoticeDetail d = h.operations().find(n.id()).orElseThrow();
      if (n.definition().equals("healthy")) {
        assertThat(d.notice().status()).as("healthy %s: %s", n.id(), d.attempts()).isEqualTo(NoticeStatus.SUCCEEDED);
        assertThat(d.attempts()).hasSize(1);
      } else {
        assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
        assertThat(d.attempts()).allSatisfy(a -> assertThat(a.detail()).contains("'vanishing'").contains("404"));
      }
    }
    java.util.Map<String, Integer> received = new java.util.HashMap<>();
    GetResponse m;
    while ((m = ch.basicGet("isolated", true)) != null) {
      received.merge(m.getProps().getMessageId(), 1, Integer::sum);
    }
    assertThat(received).hasSize(300).allSatisfy((id, times) -> assertThat(times).as("message %s", id).isEqualTo(1));
  }

  /** Notices naming exchange after exchange (their own targets) never open more than 64 channels on a broker. */
  @Test
  void channelsPerExchangeAreBounded() {
    AmqpChannel amqp = AmqpChannel.builder().broker("main", broker.uri()).build();
    ManualRunner runner = herald(amqp, orderPaid("orders/order.paid"));
    Herald h = (Herald) toClose.getLast();
    List<Notice> elsewhere = new ArrayList<>();
    for (int i = 0; i < BrokerPublisher.MAX_LANES + 6; i++) {
      elsewhere.add(h.enqueue(NoticeRequest.of("order-paid", "{}").target("nowhere-" + i + "/k")));
    }
    Notice paid = h.enqueue("order-paid", "{}");
    runner.runDue();

    assertThat(amqp.publisher("main").lanes()).isEqualTo(BrokerPublisher.MAX_LANES);
    assertThat(h.operations().find(paid.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(elsewhere).allSatisfy(n -> assertThat(h.operations().find(n.id()).orElseThrow().notice().lastError())
        .contains("'nowhere-").contains("does not exist"));
  }

  @Test
  void aBrokerThatCannotBeReachedIsRetried() throws Exception {
    int closedPort;
    try (var s = new java.net.ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    ManualRunner runner = herald(AmqpChannel.builder().broker("gone", "amqp://guest:guest@127.0.0.1:" + closedPort).build(),
        orderPaid("orders/order.paid"));
    Herald h = (Herald) toClose.getLast();
    Notice n = h.enqueue("order-paid", "{}");
    runner.runDue();

    NoticeDetail d = h.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().lastError()).contains("broker 'gone' unreachable").contains("Connect");
  }

  @Test
  void aDefinitionIsRefusedNamingTheBadField() {
    AmqpChannel two = AmqpChannel.builder().broker("a", broker.uri()).broker("b", broker.uri()).build();
    toClose.add(two);
    assertThatThrownBy(() -> two.validate(orderPaid("orders/order.paid")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.broker"));
    assertThatThrownBy(() -> two.validate(NoticeDefinition.builder("x").channel("amqp", "orders/k")
        .option("broker", "c").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.getMessage()).contains("[a, b]"));
    assertThatThrownBy(() -> two.validate(NoticeDefinition.builder("x").channel("amqp", "orders/k")
        .option("broker", "a").option("confirm-timeout", "soon").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.confirm-timeout"));
    assertThatThrownBy(() -> two.validateTarget("/"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    assertThatThrownBy(() -> two.validateTarget("bad exchange/k"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    assertThatThrownBy(() -> AmqpChannel.builder().broker("main", "http://x").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("brokers.main"));
    assertThatThrownBy(() -> AmqpChannel.builder().build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("brokers"));
    assertThat(Map.of()).isEmpty();
  }
}
