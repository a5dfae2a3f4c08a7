package dev.herald.server.demo;

import dev.herald.AlertPolicy;
import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Demo mode's feed: saves the demo definitions (targets on {@link DemoReceiver}, in this server) once
 * the server listens, enqueues a first burst, then a few notices every 2 seconds for {@link #STREAM}.
 * Some succeed, some retry, some go DEAD (and alert by e-mail when SMTP is configured), some wait
 * for a confirmation (odd-numbered ones confirmed by the demo a little later), some are due later.
 */
final class DemoRun implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {
  static final String ORDERS = "demo-orders";
  static final String PAYOUTS = "demo-payouts";
  static final String REPORTS = "demo-reports";
  static final String ALERT_EMAIL = "ops@example.com";
  static final Duration STREAM = Duration.ofMinutes(5);
  private static final Logger log = LoggerFactory.getLogger(DemoRun.class);

  private final Herald herald;
  private final Environment environment;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().daemon().name("herald-demo").factory());
  /** Keeps idempotency keys of this run apart from those of an earlier run on the same data. */
  private final String run = HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
  private final AtomicInteger orders = new AtomicInteger(1001);
  private final AtomicInteger payouts = new AtomicInteger(1);
  private final AtomicInteger reports = new AtomicInteger(1);
  /** By identity: requests are records, equal by value. */
  private final java.util.Set<NoticeRequest> toConfirm =
      java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));

  DemoRun(Herald herald, Environment environment) {
    this.herald = herald;
    this.environment = environment;
    String url = environment.getProperty("spring.datasource.url");
    log.warn("Demo mode is ON (herald.server.demo=true): this server saves the definitions {}, {}, {}, feeds them"
        + " notices for {} minutes, serves their receiver at /demo/receiver and lets webhooks reach 127.0.0.1."
        + " Never turn it on in production{}", ORDERS, PAYOUTS, REPORTS, STREAM.toMinutes(),
        url == null ? "." : "; it is writing to the database " + url.replaceAll("[?;].*", "") + ".");
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web) || web.getWebServer() == null) {
      return;
    }
    int port = web.getWebServer().getPort();
    String receiver = "http://127.0.0.1:" + port + "/demo/receiver/";
    boolean mail = !environment.getProperty("herald.server.alerts.smtp-host", "").isBlank();
    NoticeDefinition.Builder ordersDef = NoticeDefinition.builder(ORDERS).channel("http", receiver + "orders")
        .retry("2s, 5s").maxAttempts(3)
        .description("Demo: order paid, to the shop. Orders ending in 0 go DEAD; 3 and 7 retry once; 5 is slow");
    if (mail) {
      ordersDef.alert(AlertPolicy.parse("final-failure")).option("alert.email", ALERT_EMAIL);
    } else {
      ordersDef.alert(AlertPolicy.never()); // an alert with nowhere to go would only warn in the log
    }
    herald.definitions().save(ordersDef.build());
    herald.definitions().save(NoticeDefinition.builder(PAYOUTS).channel("http", receiver + "payouts")
        .retry("3s").maxAttempts(4).option("timeout", "2s")
        .description("Demo: payout to a merchant whose receiver is slow (some attempts time out)").build());
    herald.definitions().save(NoticeDefinition.builder(REPORTS).channel("http", receiver + "reports")
        .retry("5s").maxAttempts(3).confirmRequired(true).confirmTimeout(Duration.ofHours(1))
        .description("Demo: daily report; counts once the receiver confirms it").build());

    String host = environment.getProperty("server.address", "localhost");
    log.info("""

        ==================================================================================================
        Demo mode: notices of {}, {} and {} are being delivered to this server's /demo/receiver
        for the next {} minutes: some succeed, some retry, some go DEAD, some await confirmation.
        Open http://{}:{}/console (user admin, with the password in initial-secrets.txt of the data
        folder, or herald.server.console.admin-password). {}
        ==================================================================================================""",
        ORDERS, PAYOUTS, REPORTS, STREAM.toMinutes(), host, port,
        mail ? "DEAD orders alert " + ALERT_EMAIL + " by e-mail (herald.server.alerts.smtp-host)."
            : "Set herald.server.alerts.smtp-host to get an alert e-mail for DEAD orders.");

    List<NoticeRequest> burst = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      burst.add(order());
    }
    for (int i = 0; i < 4; i++) {
      burst.add(payout());
      burst.add(report());
    }
    burst.add(later());
    enqueue(burst);
    long ticks = STREAM.toSeconds() / 2;
    AtomicInteger tick = new AtomicInteger();
    timer.scheduleWithFixedDelay(() -> {
      int t = tick.incrementAndGet();
      if (t == ticks) {
        log.info("Demo mode: the stream of demo notices is over; the console keeps what was delivered");
      }
      if (t >= ticks) {
        return;
      }
      List<NoticeRequest> batch = new ArrayList<>();
      int n = ThreadLocalRandom.current().nextInt(1, 4);
      for (int i = 0; i < n; i++) {
        batch.add(order());
      }
      if (t % 3 == 0) {
        batch.add(payout());
      }
      if (t % 5 == 0) {
        batch.add(report());
      }
      if (t % 10 == 0) {
        batch.add(later());
      }
      enqueue(batch);
    }, 2, 2, TimeUnit.SECONDS);
  }

  private NoticeRequest order() {
    int n = orders.getAndIncrement();
    return NoticeRequest.of(ORDERS, "{\"order\":" + n + ",\"amount\":\"" + (n % 90 + 10) + ".50\",\"currency\":\"EUR\"}")
        .description("order " + n + " paid").idempotencyKey("order-" + n + "-" + run);
  }

  private NoticeRequest payout() {
    int n = payouts.getAndIncrement();
    return NoticeRequest.of(PAYOUTS, "{\"payout\":" + n + ",\"merchant\":\"m-" + (n % 7 + 1) + "\",\"amount\":\""
        + (n * 37 % 500 + 20) + ".00\"}").description("payout " + n + " to merchant m-" + (n % 7 + 1));
  }

  /** Odd-numbered reports are confirmed a little later, as their receiver would; even ones keep waiting. */
  private NoticeRequest report() {
    int n = reports.getAndIncrement();
    NoticeRequest r = NoticeRequest.of(REPORTS, "{\"report\":\"daily-sales\",\"number\":" + n + "}")
        .description("daily sales report " + n);
    if (n % 2 == 1) {
      toConfirm.add(r);
    }
    return r;
  }

  /** Due in an hour or more: pending, for the search and the fire-time change. */
  private NoticeRequest later() {
    int n = orders.getAndIncrement();
    return NoticeRequest.of(ORDERS, "{\"order\":" + n + ",\"action\":\"close-if-unpaid\"}")
        .description("order " + n + ": close if still unpaid").delay(Duration.ofHours(1 + n % 23));
  }

  private void enqueue(List<NoticeRequest> batch) {
    try {
      List<dev.herald.Notice> created = herald.enqueueAll(batch);
      for (int i = 0; i < batch.size(); i++) {
        java.util.UUID id = created.get(i).id();
        if (toConfirm.remove(batch.get(i))) {
          timer.schedule(() -> confirm(id), 8, TimeUnit.SECONDS);
        }
      }
    } catch (RuntimeException e) {
      batch.forEach(toConfirm::remove);
      log.warn("Demo mode: could not enqueue demo notices: {}", e.toString());
    }
  }

  private void confirm(java.util.UUID id) {
    try {
      herald.operations().confirm(id);
    } catch (RuntimeException e) {
      log.debug("Demo mode: report {} not confirmed: {}", id, e.toString());
    }
  }

  @Override
  public void destroy() {
    timer.shutdownNow();
  }
}
