package dev.herald.server.alerts;

import dev.herald.AlertEvent;
import dev.herald.AlertPolicy;
import dev.herald.Attempt;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.schedule.RetrySchedule;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns the engine's alert events into alerts people get. Each alert is itself a notice, of {@value
 * #MAIL_DEFINITION} (e-mail) or {@value #WEBHOOK_DEFINITION} (a signed webhook): stored, retried
 * without a limit, never dropped once enqueued. Per definition, the first alert of a window goes out
 * at once; the ones that follow within the window are counted and sent as one alert when it ends. A
 * definition with {@code alert.recovered=true} also alerts when it delivers again after an alert.
 *
 * <p>Work happens on one thread of its own: the engine's listener calls only hand events over.
 */
public final class AlertService implements HeraldListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AlertService.class);
  public static final String MAIL_DEFINITION = "herald-alert-mail";
  public static final String WEBHOOK_DEFINITION = "herald-alert-webhook";
  static final String EMAIL = "alert.email";
  static final String WEBHOOK = "alert.webhook";
  static final String RECOVERED = "alert.recovered";
  private static final String PLACEHOLDER = "https://alert-webhook.invalid/";

  /** One definition's window: when its last alert went out, and what came since. */
  private static final class Window {
    long openedAt;
    int suppressed;
    AlertEvent last;
  }

  private final Supplier<Herald> herald;
  private final AlertProperties properties;
  private final Clock clock;
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("herald-alerts").factory());
  /** Touched by the worker only. */
  private final Map<String, Window> windows = new ConcurrentHashMap<>();
  /** Definitions that alerted and have not delivered since: read on engine threads, cheaply. */
  private final Set<String> failing = ConcurrentHashMap.newKeySet();

  public AlertService(Supplier<Herald> herald, AlertProperties properties, Clock clock) {
    this.herald = herald;
    this.properties = properties;
    this.clock = clock;
    long tick = Math.max(200, properties.getWindow().toMillis() / 10);
    worker.scheduleWithFixedDelay(this::flush, tick, tick, TimeUnit.MILLISECONDS);
  }

  /** Creates the two alert definitions if missing (alerts about alerts: never). */
  public void ensureDefinitions() {
    Herald h = herald.get();
    RetrySchedule retry = RetrySchedule.parse("exponential(base=10s, factor=2, cap=15m)", "retry");
    if (h.definitions().find(MAIL_DEFINITION).isEmpty()) {
      h.definitions().save(NoticeDefinition.builder(MAIL_DEFINITION).channel(MailAlertChannel.NAME, "recipients")
          .retry(retry).unlimitedAttempts().alert(AlertPolicy.never())
          .description("Alert e-mail; each notice names its recipients").build());
    }
    if (h.definitions().find(WEBHOOK_DEFINITION).isEmpty()) {
      NoticeDefinition.Builder b = NoticeDefinition.builder(WEBHOOK_DEFINITION).channel("http", PLACEHOLDER)
          .retry(retry).unlimitedAttempts().alert(AlertPolicy.never())
          .description("Alert webhooks; each notice names its URL");
      if (properties.getWebhookSecrets() != null && !properties.getWebhookSecrets().isBlank()) {
        b.option("secrets", properties.getWebhookSecrets());
      }
      h.definitions().save(b.build());
    }
  }

  @Override
  public void onAlert(AlertEvent alert) {
    worker.execute(() -> raised(alert));
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    if (attempt.outcome().name().equals("DELIVERED") || attempt.outcome().name().equals("AWAIT_CONFIRM")) {
      if (failing.remove(notice.definition())) {
        worker.execute(() -> recovered(notice));
      }
    }
  }

  private void raised(AlertEvent alert) {
    String def = alert.notice().definition();
    if (def.equals(MAIL_DEFINITION) || def.equals(WEBHOOK_DEFINITION)) {
      return;
    }
    long now = clock.millis();
    Window w = windows.computeIfAbsent(def, d -> new Window());
    failing.add(def);
    if (w.last == null || now - w.openedAt >= properties.getWindow().toMillis()) {
      int count = 1 + w.suppressed;
      w.openedAt = now;
      w.suppressed = 0;
      w.last = alert;
      send(def, failure(alert, count));
    } else {
      w.suppressed++;
      w.last = alert;
    }
  }

  /** Sends the counted alerts of windows that ended. */
  private void flush() {
    try {
      long now = clock.millis();
      for (Map.Entry<String, Window> e : windows.entrySet()) {
        Window w = e.getValue();
        if (w.suppressed > 0 && now - w.openedAt >= properties.getWindow().toMillis()) {
          int count = w.suppressed;
          w.openedAt = now;
          w.suppressed = 0;
          send(e.getKey(), failure(w.last, count));
        }
      }
    } catch (RuntimeException e) {
      log.warn("Herald alerts: sending grouped alerts failed; trying again at the next tick", e);
    }
  }

  private void recovered(Notice notice) {
    Window w = windows.remove(notice.definition());
    int pending = w == null ? 0 : w.suppressed;
    if (pending > 0) {
      send(notice.definition(), failure(w.last, pending)); // what the window counted is still told
    }
    NoticeDefinition d = herald.get().definitions().find(notice.definition()).orElse(null);
    if (d != null && Boolean.parseBoolean(d.option(RECOVERED, "false"))) {
      ObjectNode a = JsonMapper.shared().createObjectNode();
      a.put("kind", "recovered");
      a.put("definition", notice.definition());
      a.put("noticeId", notice.id().toString());
      a.put("at", Instant.ofEpochMilli(clock.millis()).toString());
      send(notice.definition(), a);
    }
  }

  private ObjectNode failure(AlertEvent e, int count) {
    ObjectNode a = JsonMapper.shared().createObjectNode();
    a.put("kind", "failure");
    a.put("definition", e.notice().definition());
    a.put("count", count);
    a.put("since", Instant.ofEpochMilli(windows.get(e.notice().definition()).openedAt).toString());
    a.put("windowSeconds", properties.getWindow().toSeconds());
    a.put("noticeId", e.notice().id().toString());
    a.put("status", e.notice().status().name());
    a.put("failures", e.failures());
    a.put("finalFailure", e.finalFailure());
    a.put("error", e.error());
    a.put("at", e.at().toString());
    return a;
  }

  /** Enqueues the alert as a notice per destination the definition names. */
  private void send(String definition, ObjectNode alert) {
    Herald h = herald.get();
    NoticeDefinition d = h.definitions().find(definition).orElse(null);
    if (d == null) {
      return;
    }
    String payload = alert.toString();
    String description = "alert: " + definition + " (" + alert.path("kind").asString("") + ")";
    String email = d.option(EMAIL, null);
    if (email != null && !email.isBlank()) {
      h.enqueue(NoticeRequest.of(MAIL_DEFINITION, payload).target(email.strip()).description(description));
    }
    String webhook = d.option(WEBHOOK, null);
    if (webhook != null && !webhook.isBlank()) {
      h.enqueue(NoticeRequest.of(WEBHOOK_DEFINITION, payload).target(webhook.strip()).description(description));
    }
    if ((email == null || email.isBlank()) && (webhook == null || webhook.isBlank())) {
      log.warn("Herald alert for definition {} has nowhere to go (set its options {} or {}): {}", definition, EMAIL,
          WEBHOOK, payload);
    }
  }

  @Override
  public void close() {
    worker.shutdown();
  }
}
