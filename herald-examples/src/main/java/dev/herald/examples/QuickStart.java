package dev.herald.examples;

import dev.herald.AlertEvent;
import dev.herald.AlertPolicy;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeContext;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeQuery;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.NoticeTransaction;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Herald end to end on the embedded H2 database: transactional enqueue, a rollback, retries, a
 * final failure with an alert, a delayed notice and a confirmation. Run from the repository root:
 * {@code ./mvnw -q -pl herald-examples -am compile exec:java}.
 */
public final class QuickStart {
  private static final Path DATA = Path.of("data", "quickstart");
  private static volatile long start;

  public static void main(String[] args) throws Exception {
    // A fresh database on every run, so that the summary shows this run only.
    deleteDirectory(DATA);

    Printer printer = new Printer();
    Herald herald = Herald.builder()
        .h2File(DATA.resolve("herald"))
        .nodeId("quickstart")
        // Claim what is due within 1 s and fire it from memory on time; look for due work every 200 ms.
        .lookAhead(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(200))
        .define(NoticeDefinition.builder("merchant-callback").handler("merchant")
            .retry("1s, 2s, 4s").maxAttempts(4).alert(AlertPolicy.finalFailure()).build())
        .define(NoticeDefinition.builder("order-auto-close").handler("close-order").build())
        .define(NoticeDefinition.builder("report-mail").handler("mail")
            .confirmWithin(Duration.ofSeconds(2)).build())
        .handler("merchant", QuickStart::callMerchant)
        .handler("close-order", ctx -> DeliveryResult.delivered("order closed"))
        .handler("mail", ctx -> DeliveryResult.delivered("mail queued; waiting for the reader's confirmation"))
        .listener(printer)
        .build()
        .start();
    start = herald.clock().millis(); // offsets below count from here
    try (herald) {
      run(herald, printer);
    }
  }

  private static void run(Herald herald, Printer printer) throws Exception {
    try (Connection c = herald.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE shop_order (id INT PRIMARY KEY, merchant VARCHAR(50) NOT NULL)");
    }
    System.out.println("    +ms  event     definition         notice                     #  outcome     detail");

    // An order row and its notices commit together; after the commit they fire at once, from memory.
    herald.inTransaction(tx -> {
      placeOrder(tx, 1001, "acme");
      // Close the order in 3 s unless it is paid: a delayed notice, fired on time by the engine's timer.
      return tx.enqueue(NoticeRequest.of("order-auto-close", "{\"order\":1001}").delay(Duration.ofSeconds(3))
          .description("close order 1001"));
    });
    herald.inTransaction(tx -> placeOrder(tx, 1002, "bolt"));
    UUID gone = herald.inTransaction(tx -> placeOrder(tx, 1003, "gone")).id();
    // Herald's own transaction, for a notice without business writes.
    Notice report = herald.enqueue(NoticeRequest.of("report-mail", "{\"report\":\"daily-sales\"}")
        .description("daily sales report"));

    // A transaction that fails after enqueueing: the order row and its notice roll back together.
    AtomicReference<Notice> rolledBack = new AtomicReference<>();
    try {
      herald.inTransaction(tx -> {
        rolledBack.set(placeOrder(tx, 1004, "acme"));
        throw new IllegalStateException("payment declined");
      });
    } catch (IllegalStateException e) {
      Printer.line("rollback", rolledBack.get(), "", "-", e.getMessage());
    }

    // Wait (at most 30 s) until no notice is live and the listener has printed every finish.
    // Once the report is delivered, confirm it, as its reader would through the API.
    NoticeQuery live = NoticeQuery.all().statuses(
        NoticeStatus.PENDING, NoticeStatus.IN_FLIGHT, NoticeStatus.FAILED, NoticeStatus.AWAITING_CONFIRM);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    boolean confirmed = false;
    while (!herald.operations().query(live).items().isEmpty() || printer.finished.get() < printer.enqueued.get()) {
      if (!confirmed && status(herald, report.id()) == NoticeStatus.AWAITING_CONFIRM) {
        Printer.line("confirm", report, "", "-", "operations().confirm(id)");
        herald.operations().confirm(report.id());
        confirmed = true;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("notices still live after 30 s");
      }
      Thread.sleep(100);
    }

    System.out.printf("%nSummary%n%-36s  %-17s  %-9s  %s%n", "id", "definition", "status", "attempts");
    for (Notice n : herald.operations().query(NoticeQuery.all()).items().reversed()) {
      System.out.printf("%-36s  %-17s  %-9s  %d%n", n.id(), n.definition(), n.status(), n.attempts());
    }
    boolean stored = herald.operations().find(rolledBack.get().id()).isPresent();
    System.out.printf("%s  (order 1004's callback: %s)%n", rolledBack.get().id(),
        stored ? "STORED - this should not happen" : "rolled back, never stored, never delivered");
    try (Connection c = herald.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT LISTAGG(id, ', ') WITHIN GROUP (ORDER BY id) FROM shop_order")) {
      rs.next();
      System.out.println("shop_order rows: " + rs.getString(1));
    }

    NoticeDetail detail = herald.operations().find(gone).orElseThrow();
    System.out.printf("%nAttempt log of the DEAD notice (%s)%n", detail.notice().description());
    for (Attempt a : detail.attempts()) {
      System.out.printf("  #%d  at %+6d ms  took %3d ms  %-9s  %s%n", a.number(), offset(a.startedAt()),
          a.duration().toMillis(), a.outcome(), firstLine(a.detail()));
    }
    System.out.println("  (each attempt's full detail, the handler's stack trace here, is in its attempt log:"
        + " operations().find(id))");
  }

  /** A business write and its merchant callback, with the caller's transaction. */
  private static Notice placeOrder(NoticeTransaction tx, int order, String merchant) throws SQLException {
    try (PreparedStatement ps = tx.connection().prepareStatement("INSERT INTO shop_order VALUES (?, ?)")) {
      ps.setInt(1, order);
      ps.setString(2, merchant);
      ps.executeUpdate();
    }
    String payload = "{\"order\":" + order + ",\"merchant\":\"" + merchant + "\"}";
    return tx.enqueue(NoticeRequest.of("merchant-callback", payload)
        .description("order " + order + " -> " + merchant));
  }

  /** A pretend HTTP call: merchant bolt is down for two attempts; merchant gone never answers. */
  private static DeliveryResult callMerchant(NoticeContext ctx) throws Exception {
    if (ctx.payload().contains("\"gone\"")) {
      throw new ConnectException("connection refused"); // an exception counts as a failed attempt
    }
    if (ctx.payload().contains("\"bolt\"") && ctx.attempt() <= 2) {
      return DeliveryResult.retry("HTTP 503 Service Unavailable");
    }
    return DeliveryResult.delivered("HTTP 200 success");
  }

  /** Prints what the engine reports. Listeners run on engine threads, so this only counts and prints. */
  private static final class Printer implements HeraldListener {
    final AtomicInteger enqueued = new AtomicInteger();
    final AtomicInteger finished = new AtomicInteger();

    @Override
    public void onEnqueued(Notice n) {
      enqueued.incrementAndGet();
    }

    @Override
    public void onAttempt(Notice n, Attempt a) {
      // A failed attempt leaves the notice FAILED, or IN_FLIGHT when the retry is due within the look-ahead.
      boolean retry = n.status() == NoticeStatus.FAILED || n.status() == NoticeStatus.IN_FLIGHT;
      long wait = retry ? Duration.between(n.updatedAt(), n.nextAttemptAt()).toMillis() : 0;
      line("attempt", n, a.number() + "", a.outcome().name(),
          firstLine(a.detail()) + (retry ? "; retry in " + wait + " ms" : ""));
    }

    @Override
    public void onFinished(Notice n) {
      line("finished", n, n.attempts() + "", n.status().name(), "");
      finished.incrementAndGet();
    }

    @Override
    public void onAlert(AlertEvent alert) {
      line("ALERT", alert.notice(), alert.failures() + "", alert.finalFailure() ? "FINAL" : "FAILING",
          firstLine(alert.error()));
    }

    /**
     * One line per event, stamped when it is printed: events reach the listener from the engine's
     * threads and the main thread, so one lock keeps the lines whole and in the order of their stamps.
     */
    static synchronized void line(String event, Notice n, String number, String outcome, String detail) {
      System.out.printf("%7d  %-8s  %-17s  %-25s %2s  %-10s  %s%n", System.currentTimeMillis() - start, event,
          n.definition(), n.description(), number, outcome, Objects.toString(detail, ""));
    }
  }

  /** The first line of an attempt's detail: an exception's message without its stack trace. */
  private static String firstLine(String detail) {
    if (detail == null) {
      return "";
    }
    int end = detail.indexOf('\n');
    return end < 0 ? detail : detail.substring(0, end);
  }

  private static NoticeStatus status(Herald herald, UUID id) {
    return herald.operations().find(id).orElseThrow().notice().status();
  }

  private static long offset(Instant t) {
    return t.toEpochMilli() - start;
  }

  /** Deletes ./data/quickstart and nothing else. */
  private static void deleteDirectory(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
