package dev.herald.server.alerts;

import dev.herald.AlertEvent;
import dev.herald.AlertPolicy;
import dev.herald.Attempt;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeTransaction;
import dev.herald.PendingAlert;
import dev.herald.schedule.RetrySchedule;
import dev.herald.server.alerts.AlertWindows.Key;
import dev.herald.server.alerts.AlertWindows.Window;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns the alerts of the core's outbox ({@link Herald#alerts()}) into alerts people get. Each is
 * itself a notice, of {@value #MAIL_DEFINITION} (e-mail) or {@value #WEBHOOK_DEFINITION} (a signed
 * webhook): stored, retried without a limit. Per definition and endpoint, the first alert of a window
 * goes out at once; the ones that follow within the window are counted ({@link AlertWindows}) and sent
 * as one alert when it ends. A definition with {@code alert.recovered=true} also alerts when it
 * delivers to that endpoint again.
 *
 * <p>Every step is one transaction that takes alerts out of the outbox or the window table and
 * enqueues what they become, so a crash loses no alert and no server sends one twice. Work happens on
 * one thread of its own: the engine's listener calls only hand events over.
 */
public final class AlertService implements HeraldListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AlertService.class);
  public static final String MAIL_DEFINITION = "herald-alert-mail";
  public static final String WEBHOOK_DEFINITION = "herald-alert-webhook";
  /** Alerts taken from the outbox per transaction. */
  private static final int DRAIN_BATCH = 500;

  /** Where an alert's notices belong: the tenant of the definition that alerted. */
  @FunctionalInterface
  public interface Ownership {
    void owned(Connection c, java.util.UUID noticeId, String definition) throws SQLException;
  }

  /** Checks a destination at send time; throws {@link dev.herald.InvalidInputException} for one refused now. */
  @FunctionalInterface
  public interface Destinations {
    void check(String kind, String destination);
  }

  private final Supplier<Herald> herald;
  private final AlertProperties properties;
  private final Clock clock;
  private final Ownership ownership;
  private final Destinations destinations;
  private final io.micrometer.core.instrument.MeterRegistry meters;
  private final java.util.function.UnaryOperator<NoticeDefinition> sealer;
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("herald-alerts").factory());
  private final AtomicBoolean drainAsked = new AtomicBoolean();
  /** Definitions and endpoints with a window (they alerted): read on engine threads, cheaply. */
  private volatile Set<Key> failing = Set.of();
  private volatile Set<String> failingDefinitions = Set.of();
  private final Set<Key> recovering = ConcurrentHashMap.newKeySet();
  private volatile boolean started;

  /** Whether {@code definition} is one of the server's own alert definitions, which must not be deleted. */
  public static boolean isInternal(String definition) {
    return MAIL_DEFINITION.equals(definition) || WEBHOOK_DEFINITION.equals(definition);
  }

  public AlertService(Supplier<Herald> herald, AlertProperties properties, Clock clock) {
    this(herald, properties, clock, (c, id, d) -> { }, (k, d) -> { }, null, d -> d);
  }

  /**
   * @param ownership records in the alert's transaction which tenant an alert notice belongs to
   * @param destinations checks each destination when an alert is sent: a refused one is skipped,
   *     logged and counted ({@code herald.alerts.failed}), and never holds back other alerts
   * @param meters where the failures are counted; null for nowhere
   * @param sealer seals the secrets of the alert definitions before they are stored
   */
  public AlertService(Supplier<Herald> herald, AlertProperties properties, Clock clock, Ownership ownership,
      Destinations destinations, io.micrometer.core.instrument.MeterRegistry meters,
      java.util.function.UnaryOperator<NoticeDefinition> sealer) {
    this.herald = herald;
    this.properties = properties;
    this.clock = clock;
    this.ownership = ownership;
    this.destinations = destinations;
    this.meters = meters;
    this.sealer = sealer;
  }

  /** Creates the two alert definitions if missing (alerts about alerts: never), then starts sending. */
  public void ensureDefinitions() {
    Herald h = herald.get();
    RetrySchedule retry = RetrySchedule.parse("exponential(base=10s, factor=2, cap=15m)", "retry");
    if (h.definitions().find(MAIL_DEFINITION).isEmpty()) {
      h.definitions().save(NoticeDefinition.builder(MAIL_DEFINITION).perNoticeTarget(MailAlertChannel.NAME)
          .retry(retry).unlimitedAttempts().alert(AlertPolicy.never())
          .description("Alert e-mail; each notice names its recipients").build());
    }
    if (h.definitions().find(WEBHOOK_DEFINITION).isEmpty()) {
      NoticeDefinition.Builder b = NoticeDefinition.builder(WEBHOOK_DEFINITION).perNoticeTarget("http")
          .retry(retry).unlimitedAttempts().alert(AlertPolicy.never())
          .description("Alert webhooks; each notice names its URL");
      if (properties.getWebhookSecrets() != null && !properties.getWebhookSecrets().isBlank()) {
        b.option("secrets", properties.getWebhookSecrets());
      }
      h.definitions().save(sealer.apply(b.build()));
    }
    start();
  }

  private synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    try {
      refreshFailing(herald.get()); // before the first delivery after a restart can look at it
    } catch (RuntimeException e) {
      log.warn("Herald alerts: cannot read the alert windows yet: {}", e.toString());
    }
    // Often enough that a window's count goes out close to its end, and an alert soon after its outcome.
    long tick = Math.clamp(properties.getWindow().toMillis() / 10, 200, 1_000);
    worker.scheduleWithFixedDelay(this::tick, 0, tick, TimeUnit.MILLISECONDS);
  }

  @Override
  public void onAlert(AlertEvent alert) {
    // The alert is in the outbox already (written with its outcome): only send it sooner than the next tick.
    if (started && drainAsked.compareAndSet(false, true)) {
      worker.execute(this::tick);
    }
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    if (!attempt.outcome().name().equals("DELIVERED") && !attempt.outcome().name().equals("AWAIT_CONFIRM")) {
      AlertDeliveryLog.failed(notice, attempt);
      return;
    }
    AlertDeliveryLog.delivered(notice, attempt);
    if (!failingDefinitions.contains(notice.definition())) {
      return;
    }
    NoticeDefinition d = herald.get().definitions().find(notice.definition()).orElse(null);
    String endpoint = PendingAlert.endpointOf(d, notice.target());
    Key key = new Key(notice.definition(), endpoint == null ? AlertWindows.NO_ENDPOINT : endpoint);
    if (failing.contains(key) && recovering.add(key)) {
      worker.execute(() -> recovered(key, notice));
    }
  }

  /** One round: alerts of the outbox, windows that ended, and the failing marks refreshed. */
  private void tick() {
    drainAsked.set(false);
    try {
      Herald h = herald.get();
      while (h.alerts().drain(DRAIN_BATCH, this::take) == DRAIN_BATCH) {
        // more wait
      }
      h.inTransaction(tx -> {
        sendEnded(tx);
        return null;
      });
      refreshFailing(h);
    } catch (RuntimeException e) {
      // Nothing is lost: what was not committed stays in the outbox or the window table.
      log.warn("Herald alerts: sending alerts failed; trying again at the next tick: {}", e.toString());
    }
  }

  /** Reads which definitions and endpoints alerted (here or on another server) and have not delivered since. */
  private void refreshFailing(Herald h) {
    Set<Key> now = AlertWindows.failing(h.dataSource());
    Set<String> definitions = ConcurrentHashMap.newKeySet();
    now.forEach(k -> definitions.add(k.definition()));
    failing = now;
    failingDefinitions = definitions;
  }

  /** The drain's handler: counts the alerts into their windows and enqueues those that go out now. */
  private List<PendingAlert> take(List<PendingAlert> alerts, NoticeTransaction tx) {
    Map<Key, List<PendingAlert>> byKey = new TreeMap<>(); // windows locked in one order: no deadlock between servers
    for (PendingAlert a : alerts) {
      if (!a.definition().equals(MAIL_DEFINITION) && !a.definition().equals(WEBHOOK_DEFINITION)) {
        byKey.computeIfAbsent(Key.of(a), k -> new ArrayList<>()).add(a);
      }
    }
    long now = clock.millis();
    long window = properties.getWindow().toMillis();
    try {
      Connection c = tx.connection();
      for (Map.Entry<Key, List<PendingAlert>> e : byKey.entrySet()) {
        List<PendingAlert> raised = e.getValue();
        PendingAlert last = raised.getLast();
        Optional<Window> open = AlertWindows.lock(c, e.getKey());
        if (open.isEmpty()) {
          Window w = new Window(e.getKey().definition(), e.getKey().endpoint(), now, raised.size() - 1, last);
          AlertWindows.insert(c, w);
          send(tx, e.getKey().definition(), failure(w, raised.getFirst(), 1, AlertMessage.FIRST));
        } else if (now - open.get().openedAt() >= window) {
          Window w = open.get();
          int count = w.waiting() + raised.size();
          AlertWindows.update(c, new Window(w.definition(), w.endpoint(), now, 0, last));
          send(tx, w.definition(), failure(w, last, count, AlertMessage.FOLLOW_UP));
        } else {
          Window w = open.get();
          AlertWindows.update(c, new Window(w.definition(), w.endpoint(), w.openedAt(), w.waiting() + raised.size(),
              last));
        }
      }
    } catch (SQLException e) {
      throw new dev.herald.StoreException("cannot count alerts into their windows: " + e.getMessage(), e);
    }
    return alerts;
  }

  /** Sends the counted alerts of windows that ended. */
  private void sendEnded(NoticeTransaction tx) {
    long now = clock.millis();
    try {
      for (Window w : AlertWindows.lockEnded(tx.connection(), now - properties.getWindow().toMillis())) {
        AlertWindows.update(tx.connection(), new Window(w.definition(), w.endpoint(), now, 0, w.last()));
        send(tx, w.definition(), failure(w, w.last(), w.waiting(), AlertMessage.FOLLOW_UP));
      }
    } catch (SQLException e) {
      throw new dev.herald.StoreException("cannot read ended alert windows: " + e.getMessage(), e);
    }
  }

  /**
   * A failing definition and endpoint delivered again: what its window counted is still told, the
   * window closed, and people told it recovered, in one transaction. If another server did this first,
   * the window is gone and nothing is sent.
   */
  private void recovered(Key key, Notice notice) {
    try {
      herald.get().inTransaction(tx -> {
        Connection c = tx.connection();
        Optional<Window> open = AlertWindows.lock(c, key);
        if (open.isEmpty()) {
          return null;
        }
        Window w = open.get();
        if (w.waiting() > 0) {
          send(tx, key.definition(), failure(w, w.last(), w.waiting(), AlertMessage.FOLLOW_UP));
        }
        AlertWindows.delete(c, key);
        NoticeDefinition d = herald.get().definitions().find(key.definition()).orElse(null);
        if (d != null && AlertOptions.recovered(d)) {
          send(tx, key.definition(), AlertMessage.recovered(source(), key.definition(),
              key.endpoint().isEmpty() ? null : key.endpoint(), w.openedAt(), notice, Instant.ofEpochMilli(clock.millis())));
        }
        return null;
      });
      Set<Key> next = ConcurrentHashMap.newKeySet();
      next.addAll(failing);
      next.remove(key);
      failing = next;
    } catch (RuntimeException e) {
      // The window stays: the next delivery to this endpoint (here or on another server) tells it.
      log.warn("Herald alerts: cannot send the recovery of {} {}: {}", key.definition(), key.endpoint(), e.toString());
    } finally {
      recovering.remove(key);
    }
  }

  /** A failure alert: {@link AlertMessage#FIRST} at once, or {@link AlertMessage#FOLLOW_UP} with a window's count. */
  private ObjectNode failure(Window w, PendingAlert e, int count, String sequence) {
    return AlertMessage.failure(source(), sequence, w.definition(), w.endpoint().isEmpty() ? null : w.endpoint(),
        w.openedAt(), properties.getWindow(), count, e, herald.get().operations().find(e.noticeId()));
  }

  /** Who sends the alerts and where their links point. */
  private AlertMessage.Source source() {
    return AlertMessage.Source.of(herald.get().settings().nodeId(), properties, properties.publicUrl());
  }

  /** Enqueues the alert, in the caller's transaction, as a notice per destination the definition names. */
  private void send(NoticeTransaction tx, String definition, ObjectNode alert) {
    NoticeDefinition d = herald.get().definitions().find(definition).orElse(null);
    if (d == null) {
      log.warn("Herald alert for definition {}, which no longer exists, dropped: {}", definition, alert);
      return;
    }
    String payload = alert.toString();
    String description = "alert: " + definition + " (" + alert.path("kind").asString("") + ")";
    String email = d.option(AlertOptions.EMAIL, null);
    if (email != null && !email.isBlank()) {
      enqueue(tx, "email", definition, NoticeRequest.of(MAIL_DEFINITION, payload).target(email.strip())
          .description(description));
    }
    String webhook = d.option(AlertOptions.WEBHOOK, null);
    if (webhook != null && !webhook.isBlank()) {
      enqueue(tx, "webhook", definition, NoticeRequest.of(WEBHOOK_DEFINITION, payload).target(webhook.strip())
          .description(description));
    }
    if ((email == null || email.isBlank()) && (webhook == null || webhook.isBlank())) {
      log.warn("Herald alert for definition {} has nowhere to go (set its options {} or {}): {}", definition,
          AlertOptions.EMAIL, AlertOptions.WEBHOOK, payload);
    }
  }

  /**
   * Enqueues one destination's alert. A destination refused now (a URL the SSRF guard refuses, bad
   * addresses) is skipped, logged and counted: it never rolls the drain back, so one bad destination
   * holds back no other alert. (Intake checks a notice before writing anything, so the transaction
   * goes on.)
   */
  private void enqueue(NoticeTransaction tx, String kind, String definition, NoticeRequest request) {
    try {
      destinations.check(kind, request.target());
      Notice n = tx.enqueue(request);
      ownership.owned(tx.connection(), n.id(), definition);
    } catch (dev.herald.InvalidInputException e) {
      log.warn("Herald alert of definition {} by {} to {} not sent: {}: {}", definition, kind, request.target(),
          e.field(), e.reason());
      if (meters != null) {
        meters.counter("herald.alerts.failed", "destination", kind, "definition", definition).increment();
      }
    } catch (SQLException e) {
      throw new dev.herald.StoreException("cannot record the tenant of an alert: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    worker.shutdown();
  }
}
