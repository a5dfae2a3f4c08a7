package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.Notice;
import dev.herald.NoticeContext;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.NoticeTransaction;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Notices published inside Spring transactions, on a running application with H2 in real files.
 * The poll interval is 30 s: everything delivered here within seconds was fired right after its
 * commit, from memory.
 */
class TransactionalNoticesTest {
  @TempDir static Path dir;
  static ConfigurableApplicationContext context;
  static NoticePublisher publisher;
  static JdbcTemplate jdbc;
  static PlatformTransactionManager txManager;
  static Inbox inbox;
  static OrderEvents orderEvents;
  static Herald herald;

  public record OrderPlaced(long order, String item) {}

  /** The business service of document 000: an order row and a notice, in one transaction. */
  public static class OrderService {
    private final JdbcTemplate jdbc;
    private final NoticePublisher notices;

    public OrderService(JdbcTemplate jdbc, NoticePublisher notices) {
      this.jdbc = jdbc;
      this.notices = notices;
    }

    /** A mistake Spring cannot see: the call to the @Transactional method does not pass its proxy. */
    public NoticeHandle placeViaSelfInvocation(long order, String item) {
      return place(order, item, false);
    }

    @Transactional
    public NoticeHandle place(long order, String item, boolean failAfterPublishing) {
      jdbc.update("INSERT INTO shop_order (id, status) VALUES (?, 'PLACED')", order);
      NoticeHandle handle = notices.publish("order-placed", new OrderPlaced(order, item));
      if (failAfterPublishing) {
        throw new IllegalStateException("payment declined");
      }
      return handle;
    }
  }

  /** A handler method taking the payload as a record, read with the application's JsonMapper. */
  public static class OrderEvents {
    final List<OrderPlaced> received = new CopyOnWriteArrayList<>();
    final List<Integer> attempts = new CopyOnWriteArrayList<>();

    @NoticeHandlerMethod("order-events")
    public DeliveryResult on(OrderPlaced event, NoticeContext ctx) {
      received.add(event);
      attempts.add(ctx.attempt());
      return DeliveryResult.delivered("took order " + event.order());
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }

    @Bean
    OrderEvents orderEvents() {
      return new OrderEvents();
    }

    @Bean
    OrderService orderService(JdbcTemplate jdbc, NoticePublisher notices) {
      return new OrderService(jdbc, notices);
    }
  }

  @BeforeAll
  static void start() {
    context = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.datasource.url=jdbc:h2:file:" + dir.resolve("app") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.node-id=tx-test",
            "herald.poll-interval=30s",
            "herald.shutdown-timeout=2s",
            "herald.definitions.plain.handler=inbox",
            "herald.definitions.plain.retry=200ms",
            "herald.definitions.order-placed.handler=order-events",
            "herald.definitions.order-placed.retry=200ms")
        .run();
    publisher = context.getBean(NoticePublisher.class);
    jdbc = context.getBean(JdbcTemplate.class);
    txManager = context.getBean(PlatformTransactionManager.class);
    inbox = context.getBean(Inbox.class);
    orderEvents = context.getBean(OrderEvents.class);
    herald = context.getBean(Herald.class);
    jdbc.execute("CREATE TABLE shop_order (id BIGINT PRIMARY KEY, status VARCHAR(20))");
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  private static TransactionTemplate tx(int propagation) {
    TransactionTemplate t = new TransactionTemplate(txManager);
    t.setPropagationBehavior(propagation);
    return t;
  }

  private static TransactionTemplate tx() {
    return tx(TransactionDefinition.PROPAGATION_REQUIRED);
  }

  private static int orders(long id) {
    return jdbc.queryForObject("SELECT COUNT(*) FROM shop_order WHERE id = ?", Integer.class, id);
  }

  private static void insertOrder(long id) {
    jdbc.update("INSERT INTO shop_order (id, status) VALUES (?, 'PLACED')", id);
  }

  private static Notice finished(NoticeHandle h) {
    await().atMost(Duration.ofSeconds(5)).until(() -> h.current().status().isFinished());
    return h.current();
  }

  /** Gives a wrongly fired notice time to show up: a marker published after it is delivered first. */
  private static void drain(String marker) {
    String payload = "{\"marker\":\"" + marker + "\"}";
    NoticeHandle m = tx().execute(s -> publisher.publish("plain", payload));
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.contains(payload));
    finished(m);
  }

  @Test
  void committedNoticeIsDeliveredOnceRightAfterTheCommitWithoutWaitingForAPoll() {
    NoticeHandle h = tx().execute(s -> {
      insertOrder(1);
      NoticeHandle published = publisher.publish("plain", "{\"commit\":1}");
      assertThat(inbox.count("\"commit\":1")).as("not before the commit").isZero();
      return published;
    });
    Instant committed = Instant.now();
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.count("\"commit\":1") == 1);
    assertThat(Duration.between(committed, Instant.now())).as("long before the 30 s poll").isLessThan(Duration.ofSeconds(5));
    assertThat(finished(h).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> inbox.count("\"commit\":1") == 1);
    assertThat(orders(1)).isEqualTo(1);
  }

  @Test
  void rolledBackNoticeIsNeverDelivered() {
    NoticeHandle[] h = new NoticeHandle[1];
    assertThatThrownBy(() -> tx().executeWithoutResult(s -> {
      insertOrder(2);
      h[0] = publisher.publish("plain", "{\"rollback\":2}");
      throw new IllegalStateException("business rule failed");
    })).hasMessage("business rule failed");
    drain("after-rollback");
    assertThat(inbox.count("\"rollback\":2")).isZero();
    assertThat(orders(2)).isZero();
    assertThatThrownBy(h[0]::current).isInstanceOf(NoticeNotFoundException.class);
  }

  @Test
  void transactionalServiceMethodPublishesAnObjectPayloadReadBackByTheHandler() {
    OrderService service = context.getBean(OrderService.class);
    NoticeHandle h = service.place(3, "book", false);
    assertThat(h.current().payload()).as("written with Jackson").isEqualTo("{\"order\":3,\"item\":\"book\"}");
    Notice after = h.awaitFirstOutcome(Duration.ofSeconds(5)).orElseThrow();
    assertThat(after.status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(orderEvents.received).contains(new OrderPlaced(3, "book"));

    assertThatThrownBy(() -> service.place(4, "pen", true)).hasMessage("payment declined");
    drain("after-declined");
    assertThat(orderEvents.received).doesNotContain(new OrderPlaced(4, "pen"));
    assertThat(orders(4)).isZero();
  }

  @Test
  void handlerExceptionLeavesTheBusinessTransactionCommittedAndIsRetried() {
    inbox.failFirstIfContains = "flaky";
    NoticeHandle h = tx().execute(s -> {
      insertOrder(5);
      return publisher.publish("plain", "{\"flaky\":5}");
    });
    assertThat(orders(5)).as("committed, whatever the handler does").isEqualTo(1);
    Notice first = h.awaitFirstOutcome(Duration.ofSeconds(5)).orElseThrow();
    assertThat(first.attempts()).isEqualTo(1);
    assertThat(first.lastError()).contains("first attempt fails");
    Notice done = finished(h);
    assertThat(done.status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(done.attempts()).isEqualTo(2);
    assertThat(inbox.count("\"flaky\":5")).isEqualTo(1);
  }

  @Test
  void nestedScopeRolledBackToItsSavepointLosesItsNoticeButTheOuterOnesAreDelivered() {
    tx().executeWithoutResult(outer -> {
      insertOrder(6);
      publisher.publish("plain", "{\"nested\":\"outer-before\"}");
      try {
        tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(inner -> {
          publisher.publish("plain", "{\"nested\":\"inner-undone\"}");
          throw new IllegalStateException("inner step failed");
        });
      } catch (IllegalStateException expected) {
        // the outer transaction carries on
      }
      tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(inner ->
          publisher.publish("plain", "{\"nested\":\"inner-kept\"}"));
      publisher.publish("plain", "{\"nested\":\"outer-after\"}");
    });
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.count("\"nested\"") == 3);
    drain("m-nested-1");
    assertThat(inbox.received.stream().filter(p -> p.contains("\"nested\"")))
        .containsExactlyInAnyOrder("{\"nested\":\"outer-before\"}", "{\"nested\":\"inner-kept\"}",
            "{\"nested\":\"outer-after\"}");
  }

  @Test
  void nestedScopeThatCommittedIsUndoneByTheOuterRollback() {
    assertThatThrownBy(() -> tx().executeWithoutResult(outer -> {
      tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(inner ->
          publisher.publish("plain", "{\"nested-outer-rollback\":1}"));
      throw new IllegalStateException("outer fails");
    })).hasMessage("outer fails");
    drain("m-nested-2");
    assertThat(inbox.count("nested-outer-rollback")).isZero();
  }

  @Test
  void requiresNewIsDeliveredWhenTheInnerCommitsEvenIfTheOuterRollsBack() {
    assertThatThrownBy(() -> tx().executeWithoutResult(outer -> {
      insertOrder(7);
      publisher.publish("plain", "{\"rn\":\"outer\"}");
      tx(TransactionDefinition.PROPAGATION_REQUIRES_NEW).executeWithoutResult(inner -> {
        publisher.publish("plain", "{\"rn\":\"inner\"}");
      });
      // delivered while the outer transaction is still open
      await().atMost(Duration.ofSeconds(5)).until(() -> inbox.count("\"rn\":\"inner\"") == 1);
      publisher.publish("plain", "{\"rn\":\"outer-again\"}");
      throw new IllegalStateException("outer fails");
    })).hasMessage("outer fails");
    drain("after-requires-new");
    assertThat(inbox.count("\"rn\":\"outer")).isZero();
    assertThat(inbox.count("\"rn\":\"inner\"")).isEqualTo(1);
    assertThat(orders(7)).isZero();
  }

  @Test
  void outsideATransactionPublishingIsRefusedSayingHowToFixItAndWritesNothing() {
    assertThatThrownBy(() -> publisher.publish("plain", "{\"alone\":1}"))
        .isInstanceOf(NoTransactionException.class)
        .hasMessageContaining("'plain'")
        .hasMessageContaining("@Transactional")
        .hasMessageContaining("herald.publisher.require-transaction=false");
    assertThat(herald.operations().query(dev.herald.NoticeQuery.all().definition("plain").page(0, 500)).items())
        .noneMatch(n -> n.payload().contains("alone"));
  }

  /** A stored payload never changes: one the handler's parameter type cannot take fails at the first attempt. */
  @Test
  void aPayloadThatDoesNotReadAsTheHandlersParameterTypeFailsAtOnce() {
    NoticeHandle h = tx().execute(s -> publisher.publish("order-placed", "{\"order\":\"not a number\"}"));
    Notice dead = finished(h);
    assertThat(dead.status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(dead.lastError()).contains("does not read as", "OrderPlaced", "order-events");
    assertThat(herald.operations().find(h.id()).orElseThrow().attempts().getFirst().outcome())
        .isEqualTo(DeliveryResult.Outcome.FAIL);
  }

  @Test
  void aTransactionalMethodCalledFromItsOwnClassHasNoTransactionAndIsRefused() {
    OrderService orders = context.getBean(OrderService.class);
    assertThatThrownBy(() -> orders.placeViaSelfInvocation(40, "book"))
        .isInstanceOf(NoTransactionException.class).hasMessageContaining("'order-placed'");
    assertThat(orders(40)).as("the order row committed on its own: auto-commit, no transaction").isEqualTo(1);
  }

  @Test
  void publishingOnAnotherThreadThanTheTransactionsIsRefused() {
    java.util.concurrent.CompletableFuture<NoticeHandle> elsewhere = tx().execute(s ->
        java.util.concurrent.CompletableFuture.supplyAsync(() -> publisher.publish("plain", "{\"async\":1}")));
    assertThatThrownBy(elsewhere::join).hasCauseInstanceOf(NoTransactionException.class);
  }

  @Test
  void insideThePublishingTransactionTheHandleShowsTheNoticeAsWrittenAndAfterItsCommitAsStored() {
    NoticeHandle h = tx().execute(s -> {
      NoticeHandle published = publisher.publish("plain", "{\"current\":1}");
      Notice inside = published.current();
      assertThat(inside.id()).isEqualTo(published.id());
      assertThat(inside.payload()).isEqualTo("{\"current\":1}");
      return published;
    });
    assertThat(finished(h).status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void publishAllInATransactionWritesAllOrNone() {
    assertThatThrownBy(() -> tx().executeWithoutResult(s -> publisher.publishAll(List.of(
        NoticeRequest.of("plain", "{\"all\":1}"), NoticeRequest.of("no-such-definition", "{}")))))
        .isInstanceOf(HeraldException.class).hasMessageContaining("no-such-definition");
    List<NoticeHandle> both = tx().execute(s -> publisher.publishAll(List.of(
        NoticeRequest.of("plain", "{\"all\":2}"), NoticeRequest.of("plain", "{\"all\":3}"))));
    both.forEach(TransactionalNoticesTest::finished);
    drain("after-all");
    assertThat(inbox.received.stream().filter(p -> p.contains("\"all\"")))
        .containsExactlyInAnyOrder("{\"all\":2}", "{\"all\":3}");
  }

  @Test
  void aTransactionOnAnotherDataSourceIsRefusedRatherThanCommittingTheNoticeAlone() {
    JdbcDataSource other = new JdbcDataSource();
    other.setURL("jdbc:h2:mem:other;DB_CLOSE_DELAY=-1");
    TransactionTemplate elsewhere = new TransactionTemplate(new DataSourceTransactionManager(other));
    assertThatThrownBy(() -> elsewhere.executeWithoutResult(s -> publisher.publish("plain", "{\"elsewhere\":1}")))
        .isInstanceOf(HeraldException.class)
        .hasMessageContaining("not on Herald's DataSource");
    drain("m-other-ds");
    assertThat(inbox.count("elsewhere")).isZero();
  }

  /** The core on its own, as the starter relies on it: a savepoint rollback inside a committed transaction. */
  @Test
  void coreNeverFiresANoticeRolledBackToASavepointFromMemory() throws Exception {
    try (Connection c = herald.dataSource().getConnection()) {
      c.setAutoCommit(false);
      NoticeTransaction t = herald.join(c);
      Savepoint sp = c.setSavepoint();
      t.enqueue("plain", "{\"raw-savepoint\":\"undone\"}");
      c.rollback(sp);
      t.enqueue("plain", "{\"raw-savepoint\":\"kept\"}");
      c.commit();
      t.afterCommit();
      c.setAutoCommit(true);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.count("\"raw-savepoint\":\"kept\"") == 1);
    drain("after-raw-savepoint");
    assertThat(inbox.count("\"raw-savepoint\":\"undone\"")).isZero();
  }
}
