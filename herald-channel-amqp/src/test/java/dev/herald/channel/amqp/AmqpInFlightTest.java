package dev.herald.channel.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.herald.DeliveryResult;
import dev.herald.DeliveryResult.Outcome;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Delivery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Many messages in flight on one exchange's channel, against Qpid Broker-J through a {@link
 * ConfirmProxy} that holds, reorders, merges and refuses the broker's confirms: each confirm settles
 * exactly the messages it names, whatever the order, and a refusal, a return or a late confirm
 * costs only its own message.
 */
@ExtendWith(QpidBroker.Shared.class)
class AmqpInFlightTest {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final NoticeDefinition DEFINITION = NoticeDefinition.builder("in-flight").channel("amqp", "inflight/k").build();

  static QpidBroker broker;
  static Connection admin;
  static com.rabbitmq.client.Channel ch;

  ConfirmProxy proxy;
  AmqpChannel amqp;

  @BeforeAll
  static void declare() throws Exception {
    broker = QpidBroker.shared();
    admin = broker.connect();
    ch = admin.createChannel();
    for (String exchange : List.of("inflight", "inflight-other")) {
      ch.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true);
    }
    ch.queueDeclare("inflight", true, false, false, null);
    ch.queueBind("inflight", "inflight", "k");
    ch.queueBind("inflight", "inflight-other", "k");
  }

  @AfterAll
  static void closeAdmin() throws Exception {
    admin.close();
  }

  @BeforeEach
  void startProxy() throws Exception {
    proxy = new ConfirmProxy(broker.port());
  }

  @AfterEach
  void close() throws Exception {
    if (amqp != null) {
      amqp.close();
    }
    proxy.close();
    ch.queuePurge("inflight");
  }

  AmqpChannel channel(AmqpChannel.Builder b) {
    amqp = b.broker("main", proxy.uri()).build();
    return amqp;
  }

  CompletableFuture<DeliveryResult> deliver(String target) {
    Instant t = Instant.now();
    Notice n = new Notice(UUID.randomUUID(), DEFINITION.name(), "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null,
        null, t, t, null, target);
    return amqp.deliver(new Delivery(n, DEFINITION, 1)).toCompletableFuture();
  }

  List<CompletableFuture<DeliveryResult>> deliver(int n, String target) {
    return IntStream.range(0, n).mapToObj(i -> deliver(target)).toList();
  }

  /** The futures of messages {@code from} to {@code to} (delivery tags, 1-based, inclusive). */
  static List<CompletableFuture<DeliveryResult>> tags(List<CompletableFuture<DeliveryResult>> all, int from, int to) {
    return all.subList(from - 1, to);
  }

  static void assertDelivered(List<CompletableFuture<DeliveryResult>> futures) {
    await().atMost(WAIT).until(() -> futures.stream().allMatch(CompletableFuture::isDone));
    assertThat(futures).allSatisfy(f -> assertThat(f.join().outcome()).as(f.join().detail()).isEqualTo(Outcome.DELIVERED));
  }

  static void assertPending(List<CompletableFuture<DeliveryResult>> futures) {
    assertThat(futures).noneMatch(CompletableFuture::isDone);
  }

  /** Message ids in the queue, each with how many times it is there. */
  static Map<String, Integer> drainQueue() throws Exception {
    Map<String, Integer> got = new HashMap<>();
    GetResponse m;
    while ((m = ch.basicGet("inflight", true)) != null) {
      got.merge(m.getProps().getMessageId(), 1, Integer::sum);
    }
    return got;
  }

  @Test
  void manyMessagesAreInFlightOnOneChannelAndEachConfirmSettlesWhatItNames() throws Exception {
    channel(AmqpChannel.builder());
    proxy.rule(tag -> ConfirmProxy.Action.HOLD);
    List<CompletableFuture<DeliveryResult>> f = deliver(40, null);

    // all 40 published on one channel and confirmed by the broker before the client saw any confirm
    await().atMost(WAIT).until(() -> proxy.held().size() == 40);
    assertThat(amqp.publisher("main").lanes()).isEqualTo(1);
    assertThat(amqp.publisher("main").inFlight()).isEqualTo(40);
    assertPending(f);

    proxy.release(40); // the last one first
    assertDelivered(tags(f, 40, 40));
    assertPending(tags(f, 1, 39));

    for (int tag = 39; tag >= 30; tag--) { // backwards
      proxy.release(tag);
    }
    assertDelivered(tags(f, 30, 39));
    assertPending(tags(f, 1, 29));

    proxy.releaseUpTo(10); // one ack, multiple: 1 to 10
    assertDelivered(tags(f, 1, 10));
    assertPending(tags(f, 11, 29));

    List<Long> rest = new ArrayList<>(proxy.held());
    Collections.shuffle(rest, new Random(22));
    for (long tag : rest) {
      proxy.release(tag);
    }
    assertDelivered(f);
    assertThat(f).allSatisfy(r -> assertThat(r.join().detail()).contains("confirmed"));
    assertThat(amqp.publisher("main").inFlight()).isZero();
    assertThat(drainQueue()).hasSize(40).allSatisfy((id, times) -> assertThat(times).isEqualTo(1));
  }

  @Test
  void aNackFailsOnlyItsMessage() throws Exception {
    channel(AmqpChannel.builder());
    proxy.rule(tag -> tag == 5 ? ConfirmProxy.Action.NACK : ConfirmProxy.Action.HOLD);
    List<CompletableFuture<DeliveryResult>> f = deliver(10, null);
    await().atMost(WAIT).until(() -> proxy.held().size() == 9);

    proxy.releaseUpTo(10); // one multiple ack over the others, after the nack of 5

    await().atMost(WAIT).until(() -> f.stream().allMatch(CompletableFuture::isDone));
    assertThat(f.get(4).join().outcome()).isEqualTo(Outcome.RETRY);
    assertThat(f.get(4).join().detail()).contains("basic.nack").contains("exchange 'inflight' routing key 'k'");
    assertDelivered(f.stream().filter(x -> x != f.get(4)).toList());
  }

  @Test
  void aReturnedMessageFailsAloneAmongOthersInFlight() throws Exception {
    channel(AmqpChannel.builder());
    proxy.rule(tag -> ConfirmProxy.Action.HOLD);
    List<CompletableFuture<DeliveryResult>> f = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      f.add(deliver(i % 4 == 0 ? "inflight/nowhere" : null)); // every fourth one: no queue bound for its key
    }
    // the broker has answered all 20 (Qpid: a nack, then the return, for each unroutable one) before any ack is passed on
    await().atMost(WAIT).until(() -> proxy.confirms() == 20);
    proxy.releaseAll();

    await().atMost(WAIT).until(() -> f.stream().allMatch(CompletableFuture::isDone));
    for (int i = 1; i <= 20; i++) {
      DeliveryResult r = f.get(i - 1).join();
      if (i % 4 == 0) {
        assertThat(r.outcome()).as("message %d", i).isEqualTo(Outcome.FAIL);
        assertThat(r.detail()).contains("unroutable").contains("312").contains("routing key 'nowhere'");
      } else {
        assertThat(r.outcome()).as("message %d: %s", i, r.detail()).isEqualTo(Outcome.DELIVERED);
      }
    }
    assertThat(drainQueue()).hasSize(15);
  }

  @Test
  void aSlowConfirmHoldsUpNothingElse() throws Exception {
    channel(AmqpChannel.builder().confirmTimeout(Duration.ofSeconds(2)));
    proxy.rule(tag -> tag == 1 ? ConfirmProxy.Action.HOLD : ConfirmProxy.Action.PASS);
    List<CompletableFuture<DeliveryResult>> f = deliver(30, null);

    assertDelivered(tags(f, 2, 30));
    assertPending(tags(f, 1, 1));
    assertDelivered(deliver(20, null)); // and the channel goes on publishing meanwhile
    assertPending(tags(f, 1, 1));

    await().atMost(WAIT).until(() -> f.getFirst().isDone()); // its confirm timeout: retried, the broker may have it
    assertThat(f.getFirst().join().outcome()).isEqualTo(Outcome.RETRY);
    assertThat(f.getFirst().join().detail()).contains("did not confirm").contains("PT2S");
    assertThat(amqp.publisher("main").inFlight()).isZero();
  }

  @Test
  void eachExchangeAndEachBrokerHasItsLimitOfMessagesInFlight() throws Exception {
    channel(AmqpChannel.builder().maxInFlightPerBroker(30).maxInFlightPerExchange(20));
    proxy.rule(tag -> ConfirmProxy.Action.HOLD);

    List<CompletableFuture<DeliveryResult>> one = deliver(25, null);
    assertThat(tags(one, 21, 25)).allSatisfy(r -> {
      assertThat(r.join().outcome()).isEqualTo(Outcome.DEFER);
      assertThat(r.join().detail()).contains("limit of 20").contains("exchange 'inflight'");
    });
    List<CompletableFuture<DeliveryResult>> other = deliver(15, "inflight-other/k"); // its own lane, the broker's room left
    assertThat(tags(other, 11, 15)).allSatisfy(r -> {
      assertThat(r.join().outcome()).isEqualTo(Outcome.DEFER);
      assertThat(r.join().detail()).contains("limit of 30");
    });
    await().atMost(WAIT).until(() -> proxy.held().size() == 30);
    assertThat(amqp.publisher("main").lanes()).isEqualTo(2);
    assertPending(tags(one, 1, 20));
    assertPending(tags(other, 1, 10));

    proxy.releaseAll();
    assertDelivered(tags(one, 1, 20));
    assertDelivered(tags(other, 1, 10));
    assertThat(amqp.publisher("main").inFlight()).isZero();
    proxy.rule(tag -> ConfirmProxy.Action.PASS);
    assertDelivered(deliver(20, null)); // room again
  }
}
