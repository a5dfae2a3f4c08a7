package dev.herald.engine;

import dev.herald.HeraldException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.Origins;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Document 003's sync-first delivery: store the notice, deliver it at once and wait a bounded time
 * for the first outcome; when the receiver is known to be failing, defer without calling it.
 */
final class SyncFirst {
  private final DefinitionCache definitions;
  private final ReceiverCircuits circuits;
  private final OutcomeWaiters waiters;
  private final NoticeStore store;
  private final Clock clock;
  private final BooleanSupplier running;

  SyncFirst(DefinitionCache definitions, ReceiverCircuits circuits, OutcomeWaiters waiters, NoticeStore store,
      Clock clock, BooleanSupplier running) {
    this.definitions = definitions;
    this.circuits = circuits;
    this.waiters = waiters;
    this.store = store;
    this.clock = clock;
    this.running = running;
  }

  /** The circuit key of a definition's receiver. */
  static String receiverOf(NoticeDefinition d) {
    return receiverOf(d, null);
  }

  /**
   * The circuit key of the receiver a notice goes to: its own target if it has one, else its
   * definition's. An http(s) URL is keyed by its origin, so one merchant's 429 defers neither other
   * merchants of the definition nor is dodged by another path on the same server; any other target
   * by channel and target.
   */
  static String receiverOf(NoticeDefinition d, String noticeTarget) {
    String target = noticeTarget != null ? noticeTarget : d.target();
    if (target == null) {
      return d.channel() + ":"; // a notice refused at enqueue: it gives no target and its definition has none
    }
    String origin = Origins.of(target);
    return origin != null ? origin : d.channel() + ":" + target;
  }

  /** See {@link dev.herald.Herald#deliverNow}; {@code enqueue} stores the notice in its own transaction. */
  dev.herald.SyncDelivery deliverNow(
      java.util.function.Function<NoticeRequest, Notice> enqueue, NoticeRequest request, Duration maxWait) {
    NoticeDefinition def = request == null || request.definition() == null
        ? null
        : definitions.find(request.definition()).orElse(null);
    String receiver = def == null ? null : receiverOf(def, request.target());
    boolean inline = def == null || circuits.allowInline(receiver);
    if (!inline) {
      // Do not call a receiver known to be failing: the deferred notice waits for the circuit's open period.
      java.time.Instant reopens = circuits.openUntil(receiver);
      java.time.Instant asked = request.fireAt() != null ? request.fireAt()
          : clock.instant().plus(request.delay() != null ? request.delay() : Duration.ZERO);
      if (reopens != null && reopens.isAfter(asked)) {
        request = request.fireAt(reopens);
      }
    }
    Notice stored = enqueue.apply(request); // validates (and names bad fields) before anything else
    if (!inline) {
      return new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DEFERRED, stored,
          "receiver " + receiver + " is failing or rate-limited; delivering in the background");
    }
    if (!stored.status().equals(NoticeStatus.IN_FLIGHT) && !running.getAsBoolean()) {
      return new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DEFERRED, stored, "engine not running");
    }
    try {
      Notice after = waiters.register(stored.id(), () -> store.find(stored.id())).get(maxWait.toMillis(), TimeUnit.MILLISECONDS);
      boolean ok = after.status() == NoticeStatus.SUCCEEDED || after.status() == NoticeStatus.AWAITING_CONFIRM;
      return ok
          ? new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DELIVERED, after, null)
          : new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DEFERRED, after,
              "first attempt failed: " + firstLine(after.lastError())); // a stack trace stays in the attempt log
    } catch (TimeoutException e) {
      return new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DEFERRED, stored,
          "no outcome within " + maxWait.toMillis() + " ms; delivering in the background");
    } catch (ExecutionException e) {
      throw new HeraldException("cannot wait for notice " + stored.id() + ": " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new dev.herald.SyncDelivery(dev.herald.SyncDelivery.Status.DEFERRED, stored, "interrupted while waiting");
    }
  }

  private static String firstLine(String error) {
    return error == null || error.indexOf('\n') < 0 ? error : error.substring(0, error.indexOf('\n')).stripTrailing();
  }
}
