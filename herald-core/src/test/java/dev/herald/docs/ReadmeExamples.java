package dev.herald.docs;

import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.channel.local.Handlers;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeQuery;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.NoticeTransaction;
import dev.herald.Ordering;
import dev.herald.metrics.HeraldMetrics;
import dev.herald.tracing.AttemptObservations;
import dev.herald.tracing.HeraldTracing;
import dev.herald.Page;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import javax.sql.DataSource;

/** The README's Java examples, compiled; {@code ReadmeExamplesTest} runs them. */
final class ReadmeExamples {
  private ReadmeExamples() {}

  static Herald twentyLines(DataSource dataSource, Merchants merchants, OrderService orders) {
    // tag::twenty-lines[]
    Herald herald = Herald.builder()
        .dataSource(dataSource)                              // your database: notices join your transactions
        .define(NoticeDefinition.builder("order-paid").handler("notify-merchant")
            .retry("5s, 5m, 1h, 1d").maxAttempts(10).alert(AlertPolicy.finalFailure()).build())
        .define(NoticeDefinition.builder("order-auto-close").handler("close-order").build())
        .handler("notify-merchant", ctx -> merchants.notify(ctx.payload())
            ? DeliveryResult.delivered() : DeliveryResult.retry("merchant did not answer success"))
        .handler("close-order", Handlers.method(orders, "closeUnpaid"))
        .build().start();

    herald.inTransaction(tx -> {                             // the order and its notices commit together
      try (PreparedStatement ps = tx.connection().prepareStatement("UPDATE orders SET paid = TRUE WHERE id = ?")) {
        ps.setLong(1, 42);
        ps.executeUpdate();
      }
      tx.enqueue(NoticeRequest.of("order-auto-close", "{\"order\":42}").delay(Duration.ofMinutes(30)));
      return tx.enqueue("order-paid", "{\"order\":42}"); // delivered right after the commit, never after a rollback
    });
    // end::twenty-lines[]
    return herald;
  }

  static Notice inTransaction(Herald herald, long orderId) {
    // tag::in-transaction[]
    Notice notice = herald.inTransaction(tx -> {
      try (PreparedStatement ps = tx.connection().prepareStatement("UPDATE orders SET paid = TRUE WHERE id = ?")) {
        ps.setLong(1, orderId);
        ps.executeUpdate();
      }
      tx.enqueue(NoticeRequest.of("order-auto-close", "{\"order\":" + orderId + "}").delay(Duration.ofMinutes(30)));
      return tx.enqueue("order-paid", "{\"order\":" + orderId + "}");
    });
    // end::in-transaction[]
    return notice;
  }

  static void join(Herald herald, DataSource dataSource) throws SQLException {
    // tag::join[]
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      NoticeTransaction tx = herald.join(c);
      try {
        // ... your statements on c ...
        tx.enqueue(NoticeRequest.of("order-paid", "{\"order\":42}").idempotencyKey("order-42-paid"));
        c.commit();
        tx.afterCommit();      // fire now, from memory
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        tx.afterRollback();    // nothing of it will ever be delivered
        throw e;
      }
    }
    // end::join[]
  }

  static Notice enqueueOnConnection(Herald herald, Connection connection) {
    // tag::enqueue-connection[]
    Notice notice = herald.enqueue(connection, NoticeRequest.of("order-paid", "{\"order\":42}"));
    // end::enqueue-connection[]
    return notice;
  }

  /** Compiled only: the actions need notices in the matching states. */
  static int operations(Herald herald, UUID id, Instant from, Instant to) {
    // tag::operations[]
    Optional<NoticeDetail> detail = herald.operations().find(id);      // notice + attempt log, live or archived
    Page<Notice> deadOnes = herald.operations().query(NoticeQuery.all()
        .definition("order-paid").statuses(NoticeStatus.DEAD).page(0, 50)); // newest first
    herald.operations().resend(id);     // due now, fresh attempt budget; also brings finished notices back
    herald.operations().cancel(id);     // never delivered again; archived as CANCELLED
    herald.operations().confirm(id);    // AWAITING_CONFIRM -> SUCCEEDED
    int requeued = herald.operations().recoverDead("order-paid", from, to);  // DEAD ones that died in [from, to)
    // end::operations[]
    return requeued + deadOnes.items().size() + detail.map(d -> 0).orElse(0);
  }

  /** Compiled only: it needs a PostgreSQL server. */
  static Herald ownPool(String password) {
    // tag::own-pool[]
    Herald herald = Herald.builder()
        .jdbc("jdbc:postgresql://db.internal/orders", "herald", password)
        .nodeId("orders-1")                        // unique per running node
        .define(NoticeDefinition.builder("order-paid").handler("notify-merchant").build())
        .build()
        .start();
    // end::own-pool[]
    return herald;
  }

  static NoticeDetail testing(Path tempDir) {
    // tag::testing[]
    SettableClock clock = SettableClock.startingNow();
    Herald herald = Herald.builder()
        .h2File(tempDir.resolve("herald"))
        .clock(clock)
        .random(new Random(42))                       // repeatable jitter
        .define(NoticeDefinition.builder("order-paid").handler("notify-merchant").retry("5s, 1m").build())
        .handler("notify-merchant", ctx -> DeliveryResult.retry("down"))
        .build();                                     // not started
    ManualRunner runner = new ManualRunner(herald, clock);

    Notice n = herald.enqueue("order-paid", "{\"order\":42}");
    runner.runDue();                                  // attempt 1
    runner.advanceAndRun(Duration.ofSeconds(5));      // attempt 2, the first retry
    NoticeDetail detail = herald.operations().find(n.id()).orElseThrow();
    // end::testing[]
    herald.close();
    return detail;
  }

  /** Ordered delivery: two notices of one order, delivered in the order enqueued. */
  static void ordered(Herald herald) {
    herald.inTransaction(tx -> {
      // tag::ordered[]
      herald.definitions().save(NoticeDefinition.builder("order-events").handler("erp")
          .ordered(Ordering.WAIT).build());
      tx.enqueue(NoticeRequest.of("order-events", "{\"order\":42,\"event\":\"paid\"}").orderingKey("order-42"));
      tx.enqueue(NoticeRequest.of("order-events", "{\"order\":42,\"event\":\"shipped\"}").orderingKey("order-42"));
      // end::ordered[]
      return null;
    });
  }

  /** Compiled only: the metrics of a node on a Micrometer registry. */
  static Herald metrics(io.micrometer.core.instrument.MeterRegistry registry, String url, String user,
      String password) {
    // tag::metrics[]
    HeraldMetrics metrics = new HeraldMetrics(registry);
    Herald herald = Herald.builder().jdbc(url, user, password).listener(metrics).build();
    metrics.watch(herald); // the gauges
    // end::metrics[]
    return herald;
  }

  /** Compiled only: notices in the caller's trace, attempts as observations. */
  static Notice tracing(io.micrometer.observation.ObservationRegistry observationRegistry,
      io.micrometer.tracing.Tracer tracer, String traceparentHeader, String url, String user, String password) {
    // tag::tracing[]
    Herald herald = Herald.builder().jdbc(url, user, password)
        .traceContext(HeraldTracing.currentTraceparent(tracer))         // notices keep the enqueuing span's trace
        .attemptObserver(new AttemptObservations(observationRegistry)) // each attempt a span in that trace
        .build().start();
    // or give it yourself, e.g. from an incoming request's header:
    Notice notice = herald.enqueue(NoticeRequest.of("order-paid", "{\"order\":42}").traceparent(traceparentHeader));
    // end::tracing[]
    return notice;
  }
}
