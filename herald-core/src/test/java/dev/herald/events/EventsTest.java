package dev.herald.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeHandler;
import dev.herald.NoticeStatus;
import dev.herald.Ordering;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing events on H2 with a settable clock: one notice per subscribed endpoint in the caller's
 * transaction (all or none), idempotency per event, filters, schemas, tenants, and a failing endpoint
 * that holds back only itself. Endpoints here use the local channel (another channel's target).
 */
class EventsTest {
  @TempDir Path dir;
  protected final List<AutoCloseable> toClose = new ArrayList<>();

  /** Where Herald stores its tables: an H2 file here; subclasses take a server database. */
  protected Herald.Builder database(Herald.Builder b) {
    return b.h2File(dir.resolve("herald"));
  }

  private final SettableClock clock = SettableClock.startingNow();
  private final Map<String, List<String>> received = new ConcurrentHashMap<>();
  private final List<String> failing = new CopyOnWriteArrayList<>();
  private Herald herald;
  private ManualRunner runner;

  @BeforeEach
  void start() {
    Herald.Builder b = database(Herald.builder()).clock(clock).nodeId("events-test");
    for (String name : List.of("acme", "globex", "initech", "umbrella")) {
      b.handler(name, receiver(name));
    }
    herald = b.build();
    runner = new ManualRunner(herald, clock);
    herald.events().saveType(EventType.of("order.paid", "An order was paid", """
        {"type": "object", "required": ["order"],
         "properties": {"order": {"type": "object", "required": ["id", "total"],
           "properties": {"id": {"type": "integer"}, "total": {"type": "number", "minimum": 0},
                          "country": {"type": "string", "minLength": 2, "maxLength": 2}}}}}"""));
    herald.events().saveType(EventType.of("order.refunded", null, null));
  }

  @AfterEach
  void close() throws Exception {
    herald.close();
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private NoticeHandler receiver(String name) {
    return ctx -> {
      if (failing.contains(name)) {
        return DeliveryResult.retry(name + " is down");
      }
      received.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>()).add(ctx.payload());
      return DeliveryResult.delivered();
    };
  }

  private EventEndpoint endpoint(String id, String... types) {
    return herald.events().saveEndpoint(EventEndpoint.builder(id).channel("local", id).retry("1m").subscribe(types)
        .build());
  }

  private int count(String table) throws Exception {
    try (Connection c = herald.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void anEventBecomesOneNoticePerSubscribedEndpointInTheCallersTransaction() throws Exception {
    endpoint("acme", "order.paid");
    endpoint("globex", "order.paid", "order.refunded");
    endpoint("initech", "*");
    endpoint("umbrella", "order.refunded");
    try (Connection c = herald.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE shop_order (id INT PRIMARY KEY)");
    }

    PublishedEvent published = herald.inTransaction(tx -> {
      try (PreparedStatement ps = tx.connection().prepareStatement("INSERT INTO shop_order VALUES (42)")) {
        ps.executeUpdate();
      }
      return tx.publish("order.paid", "{\"order\": {\"id\": 42, \"total\": 9.5}}");
    });

    assertThat(published.created()).isTrue();
    assertThat(published.event().endpoints()).isEqualTo(3);
    assertThat(published.deliveries()).extracting(EventDelivery::endpointId).containsExactly("acme", "globex", "initech");
    runner.runDue();
    assertThat(received).containsOnlyKeys("acme", "globex", "initech");
    received.values().forEach(p -> assertThat(p).containsExactly("{\"order\": {\"id\": 42, \"total\": 9.5}}"));

    PublishedEvent seen = herald.events().find(null, published.event().id()).orElseThrow();
    assertThat(seen.taken()).isEqualTo(3);
    assertThat(seen.deliveries()).allSatisfy(d -> {
      assertThat(d.status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(d.attempts()).isEqualTo(1);
    });
    assertThat(herald.operations().find(seen.deliveries().getFirst().noticeId()).orElseThrow().notice().definition())
        .isEqualTo("endpoint.acme");
    assertThat(herald.events().eventOf(herald.operations().find(seen.deliveries().get(1).noticeId()).orElseThrow()
        .notice())).contains(published.event().id());
  }

  @Test
  void aRolledBackTransactionLeavesNoEventNoNoticeAndNoBusinessRow() throws Exception {
    endpoint("acme", "order.paid");
    endpoint("globex", "order.paid");
    try (Connection c = herald.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE shop_order (id INT PRIMARY KEY)");
    }

    assertThatThrownBy(() -> herald.inTransaction(tx -> {
      try (PreparedStatement ps = tx.connection().prepareStatement("INSERT INTO shop_order VALUES (7)")) {
        ps.executeUpdate();
      }
      tx.publish("order.paid", "{\"order\": {\"id\": 7, \"total\": 1}}");
      throw new IllegalStateException("payment refused after all");
    })).hasMessage("payment refused after all");

    assertThat(runner.runDue()).isZero();
    assertThat(received).isEmpty();
    assertThat(count("shop_order")).isZero();
    assertThat(count("herald_event")).isZero();
    assertThat(count("herald_event_delivery")).isZero();
    assertThat(count("herald_notice")).isZero();
  }

  @Test
  void theSameIdempotencyKeyReturnsTheFirstEventAndWritesNothingMore() throws Exception {
    endpoint("acme", "order.paid");
    endpoint("globex", "order.paid");
    EventRequest paid = EventRequest.of("order.paid", "{\"order\": {\"id\": 1, \"total\": 3}}").idempotencyKey("o-1");
    PublishedEvent first = herald.events().publish(paid);
    PublishedEvent again = herald.events().publish(paid.idempotencyKey("o-1"));

    assertThat(again.created()).isFalse();
    assertThat(again.event().id()).isEqualTo(first.event().id());
    assertThat(again.deliveries()).extracting(EventDelivery::noticeId)
        .containsExactlyElementsOf(first.deliveries().stream().map(EventDelivery::noticeId).toList());
    assertThat(count("herald_notice")).isEqualTo(2);
    assertThat(count("herald_event")).isEqualTo(1);
    // another tenant's key is another key
    herald.events().saveType(EventType.of("order.paid", null, null).tenant("shop"));
    assertThat(herald.events().publish(paid.tenant("shop")).created()).isTrue();
    runner.runDue();
    assertThat(received.get("acme")).hasSize(1);
    assertThat(herald.events().findByKey(null, "o-1").orElseThrow().event().id()).isEqualTo(first.event().id());
  }

  @Test
  void aFailingEndpointHoldsBackOnlyItself() throws Exception {
    endpoint("acme", "order.paid");
    endpoint("globex", "order.paid");
    endpoint("initech", "order.paid");
    failing.add("globex");
    List<PublishedEvent> events = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      events.add(herald.events().publish(EventRequest.of("order.paid", "{\"order\": {\"id\": %d, \"total\": 1}}"
          .formatted(i))));
    }
    runner.runDue();
    assertThat(received.get("acme")).hasSize(5);
    assertThat(received.get("initech")).hasSize(5);
    assertThat(received).doesNotContainKey("globex");
    PublishedEvent seen = herald.events().find(null, events.getFirst().event().id()).orElseThrow();
    assertThat(seen.taken()).isEqualTo(2);
    EventDelivery globex = seen.deliveries().stream().filter(d -> d.endpointId().equals("globex")).findFirst()
        .orElseThrow();
    assertThat(globex.status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(globex.lastError()).isEqualTo("globex is down");

    failing.clear();
    clock.advance(Duration.ofMinutes(2));
    runner.runDue();
    assertThat(received.get("globex")).hasSize(5);
    assertThat(herald.events().list(null, "order.paid", null, null, 0, 10).items())
        .hasSize(5).allSatisfy(e -> assertThat(e.taken()).isEqualTo(3));
  }

  @Test
  void aPayloadTheSchemaRefusesIsRefusedNamingThePathAndNothingIsWritten() throws Exception {
    endpoint("acme", "order.paid");
    assertThatThrownBy(() -> herald.events().publish(EventRequest.of("order.paid",
        "{\"order\": {\"id\": 42, \"total\": \"9.50\"}}")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("payload.order.total");
          assertThat(e.reason()).isEqualTo("must be a number, was a string");
        });
    assertThatThrownBy(() -> herald.events().publish(EventRequest.of("order.paid", "{\"order\": {\"id\": 42}}")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("payload.order.total"));
    assertThatThrownBy(() -> herald.events().publish(EventRequest.of("order.paid",
        "{\"order\": {\"id\": 4.5, \"total\": -1}}")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("payload.order.id");
          assertThat(e.reason()).isEqualTo("must be an integer, was a number");
        });
    assertThatThrownBy(() -> herald.events().publish(EventRequest.of("order.shipped", "{}")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("type");
          assertThat(e.reason()).isEqualTo("no event type 'order.shipped'");
        });
    assertThatThrownBy(() -> herald.events().publish(EventRequest.of("order.paid", "{\"order\": ")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("payload"));
    assertThat(count("herald_event")).isZero();
    assertThat(count("herald_notice")).isZero();
  }

  @Test
  void filtersDisabledEndpointsAndTenantsDecideWhoGetsAnEvent() throws Exception {
    herald.events().saveEndpoint(EventEndpoint.builder("acme").channel("local", "acme").subscribe("order.paid")
        .filter("{\"order.country\": \"DE\", \"order.total\": {\"$gte\": 100}}").build());
    herald.events().saveEndpoint(EventEndpoint.builder("globex").channel("local", "globex").subscribe("order.paid")
        .filter("{\"order.country\": {\"$in\": [\"FR\", \"BE\"]}}").build());
    endpoint("initech", "order.paid");
    herald.events().enable(null, "initech", false);
    herald.events().saveType(EventType.of("order.paid", null, null).tenant("shop"));
    herald.events().saveEndpoint(EventEndpoint.builder("umbrella").tenant("shop").channel("local", "umbrella")
        .subscribe("order.paid").build());

    PublishedEvent big = herald.events().publish(EventRequest.of("order.paid",
        "{\"order\": {\"id\": 1, \"total\": 150, \"country\": \"DE\"}}"));
    PublishedEvent small = herald.events().publish(EventRequest.of("order.paid",
        "{\"order\": {\"id\": 2, \"total\": 50, \"country\": \"DE\"}}"));
    PublishedEvent french = herald.events().publish(EventRequest.of("order.paid",
        "{\"order\": {\"id\": 3, \"total\": 50, \"country\": \"FR\"}}"));
    PublishedEvent shop = herald.events().publish(EventRequest.of("order.paid", "{\"n\": 1}").tenant("shop"));

    assertThat(big.deliveries()).extracting(EventDelivery::endpointId).containsExactly("acme");
    assertThat(small.deliveries()).isEmpty();
    assertThat(small.event().endpoints()).isZero();
    assertThat(french.deliveries()).extracting(EventDelivery::endpointId).containsExactly("globex");
    assertThat(shop.deliveries()).extracting(EventDelivery::endpointId).containsExactly("umbrella");
    assertThat(herald.operations().find(shop.deliveries().getFirst().noticeId()).orElseThrow().notice().definition())
        .isEqualTo("shop.endpoint.umbrella");
    assertThat(herald.events().find(null, shop.event().id())).as("another tenant's event").isEmpty();
    assertThat(herald.events().endpoints("shop")).extracting(EventEndpoint::id).containsExactly("umbrella");
    runner.runDue();
    assertThat(received).containsOnlyKeys("acme", "globex", "umbrella");
  }

  @Test
  void anEndpointCannotSubscribeToATypeThatDoesNotExist() {
    assertThatThrownBy(() -> endpoint("acme", "order.payed"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("eventTypes");
          assertThat(e.reason()).contains("no event type 'order.payed'");
        });
    assertThat(herald.definitions().find("endpoint.acme")).isEmpty();
    assertThatThrownBy(() -> herald.events().saveEndpoint(EventEndpoint.builder("acme").channel("local", "acme")
        .filter("{\"total\": {\"$around\": 5}}").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("filter.total.$around"));
  }

  @Test
  void orderedEndpointsGetTheEventsOfOneKeyInOrderEachInItsOwnLine() {
    herald.events().saveEndpoint(EventEndpoint.builder("acme").channel("local", "acme").subscribe("order.refunded")
        .retry("1m").ordered(Ordering.WAIT).build());
    herald.events().saveEndpoint(EventEndpoint.builder("globex").channel("local", "globex").subscribe("order.refunded")
        .retry("1m").ordered(Ordering.WAIT).build());
    failing.add("acme");
    for (int i = 1; i <= 3; i++) {
      herald.events().publish(EventRequest.of("order.refunded", "{\"n\": " + i + "}").orderingKey("order-9"));
    }
    runner.runDue();
    runner.runDue();
    assertThat(received.get("globex")).as("acme's failing head holds back only acme's line")
        .containsExactly("{\"n\": 1}", "{\"n\": 2}", "{\"n\": 3}");
    assertThat(received).doesNotContainKey("acme");
    failing.clear();
    for (int i = 0; i < 4; i++) {
      clock.advance(Duration.ofMinutes(1));
      runner.runDue();
    }
    assertThat(received.get("acme")).containsExactly("{\"n\": 1}", "{\"n\": 2}", "{\"n\": 3}");
  }
}
