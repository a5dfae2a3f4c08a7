package dev.herald.engine;

import dev.herald.AlertEvent;
import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.PendingAlert;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;

/** The rules that turn an attempt's result, or an operator's action, into the notice's next state. */
public final class Transitions {
  /** Longest description kept. */
  public static final int MAX_DESCRIPTION = 4000;
  /** See {@link DeliveryResult#MAX_RETRY_AFTER}; applied again here for results built by other means. */
  private static final Duration MAX_RETRY_AFTER = DeliveryResult.MAX_RETRY_AFTER;

  private Transitions() {}

  /**
   * What an attempt leads to.
   *
   * @param change the optimistic change to record
   * @param alert the alert the definition's policy raises, or null
   */
  public record AfterAttempt(Change change, AlertEvent alert) {}

  /** Everything an attempt needs to be judged. */
  public record AttemptFacts(
      NoticeRow claimed, NoticeDefinition definition, DeliveryResult result, Instant startedAt, Duration took,
      String node) {}

  /**
   * Decides the state after an attempt.
   *
   * @param now the time the outcome is recorded
   * @param keepUntil a retry due at or before this time stays held by the claim's owner (it is
   *     already within the node's look-ahead); null to always release
   * @param leaseUntil the lease a kept retry gets
   */
  public static AfterAttempt afterAttempt(
      AttemptFacts f, Instant now, Instant keepUntil, Instant leaseUntil, RandomGenerator random) {
    if (f.result().outcome() == DeliveryResult.Outcome.DEFER) {
      return new AfterAttempt(confirmable(deferred(f, now, keepUntil, leaseUntil), now), null);
    }
    NoticeRow row = f.claimed();
    Notice n = row.notice();
    NoticeDefinition def = f.definition();
    DeliveryResult r = f.result();
    int number = n.attempts() + 1;
    int inBudget = number - row.retryBase();
    String description = r.description() != null ? Attempt.bound(r.description(), MAX_DESCRIPTION) : n.description();
    boolean exhausted = r.outcome() == DeliveryResult.Outcome.RETRY && def.attemptsExhausted(inBudget);
    // The attempt that used up the budget is logged as what it was: the last, with no retry after it.
    Attempt attempt = exhausted
        ? new Attempt(n.id(), number, f.startedAt(), f.took(), DeliveryResult.Outcome.FAIL,
            lastOf(r.detail(), inBudget, def.maxAttempts()), f.node())
        : new Attempt(n.id(), number, f.startedAt(), f.took(), r.outcome(), r.detail(), f.node());

    NoticeStatus status;
    Instant due = null;
    String error = null;
    String owner = null;
    Instant lease = Instant.EPOCH;
    AlertEvent alert = null;
    switch (r.outcome()) {
      case DELIVERED, AWAIT_CONFIRM -> {
        boolean confirm = r.outcome() == DeliveryResult.Outcome.AWAIT_CONFIRM || def.confirmRequired();
        status = confirm ? NoticeStatus.AWAITING_CONFIRM : NoticeStatus.SUCCEEDED;
        due = confirm ? now.plus(def.confirmTimeout()) : null;
      }
      case FAIL, RETRY -> {
        error = r.detail() == null ? r.outcome().name().toLowerCase() : r.detail();
        boolean dead = r.outcome() == DeliveryResult.Outcome.FAIL || def.attemptsExhausted(inBudget);
        if (dead) {
          status = NoticeStatus.DEAD;
        } else {
          due = now.plus(retryDelay(def, inBudget + 1, r.retryAfter(), random));
          boolean keep = keepUntil != null && !due.isAfter(keepUntil);
          status = keep ? NoticeStatus.IN_FLIGHT : NoticeStatus.FAILED;
          owner = keep ? row.owner() : null;
          lease = keep ? leaseUntil : Instant.EPOCH;
        }
        if (def.alertPolicy().alertsOn(inBudget, dead)) {
          alert = new AlertEvent(null, inBudget, dead, error, now);
        }
      }
      default -> throw new IllegalStateException("unknown outcome " + r.outcome());
    }
    Notice next = n.with().description(description).status(status).attempts(number).nextAttemptAt(due)
        .lastAttemptAt(f.startedAt()).lastError(error).updatedAt(now).finishedAt(status.isFinished() ? now : null)
        .build();
    if (alert != null) {
      alert = new AlertEvent(next, alert.failures(), alert.finalFailure(), alert.error(), alert.at());
    }
    Change change = confirmable(new Change(row, row.next(next, owner, lease), attempt, pending(alert, def)), now);
    return new AfterAttempt(change, alert);
  }

  /** A detail whose first line (the verdict) says that no retry follows. */
  static String lastOf(String detail, int attempt, int maxAttempts) {
    String d = detail == null ? "retry" : detail;
    String note = " (attempt " + attempt + " of " + maxAttempts + ": no retry left, DEAD)";
    int end = d.indexOf('\n');
    return Attempt.bound(end < 0 ? d + note : d.substring(0, end) + note + d.substring(end));
  }

  /**
   * The change, able to become a success: if the receiver confirmed while the notice was in flight
   * (during the attempt this change records, or before a release of a delivered notice), the store
   * writes the notice SUCCEEDED instead, with the change (see {@link Change#ifConfirmed()}). A change
   * to SUCCEEDED or CANCELLED, or of a notice not attempted since its last resend, stays as it is.
   */
  static Change confirmable(Change c, Instant now) {
    NoticeStatus to = c.next().status();
    boolean attempted = c.attempt() != null || c.next().attemptsInBudget() > 0;
    if (c.expected().status() != NoticeStatus.IN_FLIGHT || !attempted || to == NoticeStatus.SUCCEEDED
        || !to.canMoveTo(NoticeStatus.SUCCEEDED)) {
      return c; // a PENDING release (nothing sent in this budget), a cancel: nothing to confirm
    }
    return c.confirmable(move(c.next(), NoticeStatus.SUCCEEDED, null, now).next());
  }

  /** Rescheduled without an attempt: attempts, error and budget unchanged. */
  private static Change deferred(AttemptFacts f, Instant now, Instant keepUntil, Instant leaseUntil) {
    NoticeRow row = f.claimed();
    Notice n = row.notice();
    Instant due = now.plus(bounded(f.result().retryAfter()));
    boolean keep = keepUntil != null && !due.isAfter(keepUntil);
    NoticeStatus status = keep ? NoticeStatus.IN_FLIGHT : unheldStatus(row);
    Notice next = n.with().status(status).nextAttemptAt(due).updatedAt(now).finishedAt(null).build();
    return new Change(row, row.next(next, keep ? row.owner() : null, keep ? leaseUntil : Instant.EPOCH), null);
  }

  /**
   * Whether the notice's last attempt delivered it and it now waits for a confirmation: it has
   * attempts in this budget and no error since (a failed attempt always leaves one).
   */
  public static boolean wasDelivered(NoticeRow row) {
    return row.attemptsInBudget() > 0 && row.notice().lastError() == null;
  }

  /** The status of a live notice nobody holds: never tried, delivered and awaiting confirmation, or failed. */
  static NoticeStatus unheldStatus(NoticeRow row) {
    if (row.attemptsInBudget() == 0) {
      return NoticeStatus.PENDING;
    }
    return wasDelivered(row) ? NoticeStatus.AWAITING_CONFIRM : NoticeStatus.FAILED;
  }

  static Duration bounded(Duration retryAfter) {
    return retryAfter == null || retryAfter.compareTo(MAX_RETRY_AFTER) <= 0 ? retryAfter : MAX_RETRY_AFTER;
  }

  /**
   * A delivered notice whose confirmation did not come within the confirm timeout, and whose
   * attempts are used up: DEAD, without another delivery. The alert policy sees a final failure.
   */
  public static AfterAttempt unconfirmed(NoticeRow row, NoticeDefinition def, Instant now) {
    Notice n = row.notice();
    String error = "not confirmed within " + def.confirmTimeout().toMillis() + " ms of delivery, "
        + row.attemptsInBudget() + " deliveries made";
    Notice next = n.with().status(NoticeStatus.DEAD).nextAttemptAt(null).lastError(error).updatedAt(now)
        .finishedAt(now).build();
    AlertEvent alert = def.alertPolicy().alertsOn(row.attemptsInBudget(), true)
        ? new AlertEvent(next, row.attemptsInBudget(), true, error, now)
        : null;
    Change change = confirmable(new Change(row, row.next(next, null, Instant.EPOCH), null, pending(alert, def)), now);
    return new AfterAttempt(change, alert);
  }

  /** The outbox row of an alert, written with the outcome that raised it. */
  private static PendingAlert pending(AlertEvent alert, NoticeDefinition def) {
    if (alert == null) {
      return null;
    }
    Notice n = alert.notice();
    return new PendingAlert(Ids.next(java.time.Clock.fixed(alert.at(), java.time.ZoneOffset.UTC)), n.id(),
        n.definition(), PendingAlert.endpointOf(def, n.target()), alert.failures(), alert.finalFailure(),
        alert.error(), alert.at());
  }

  /** The wait before attempt {@code attemptInBudget}: the schedule's, at least Retry-After, capped. */
  static Duration retryDelay(NoticeDefinition def, int attemptInBudget, Duration retryAfter, RandomGenerator random) {
    Duration delay = def.retrySchedule().delayBefore(attemptInBudget, random);
    retryAfter = bounded(retryAfter);
    if (retryAfter != null && retryAfter.compareTo(delay) > 0) {
      delay = retryAfter;
    }
    if (def.maxInterval() != null && delay.compareTo(def.maxInterval()) > 0) {
      delay = def.maxInterval();
    }
    return delay;
  }

  /** An unowned copy with a new status and due time (release, resend, cancel, confirm). */
  public static Change move(NoticeRow row, NoticeStatus status, Instant due, Instant now) {
    Notice n = row.notice();
    Notice next = n.with().status(status).nextAttemptAt(status.isFinished() ? null : due).updatedAt(now)
        .finishedAt(status.isFinished() ? now : null).build();
    return new Change(row, row.next(next, null, Instant.EPOCH), null);
  }

  /** The edited notice, unowned, due at its (new) fire time; PENDING if never attempted, else FAILED. */
  public static Change edit(NoticeRow row, dev.herald.NoticeEdit e, Instant now) {
    Notice n = row.notice();
    Instant fireAt = e.fireAt() != null ? e.fireAt() : n.fireAt();
    Instant due = e.fireAt() != null ? e.fireAt() : n.nextAttemptAt();
    NoticeStatus status = unheldStatus(row);
    Notice next = n.with().payload(e.payload() != null ? e.payload() : n.payload()).status(status).fireAt(fireAt)
        .nextAttemptAt(due).updatedAt(now).finishedAt(null).target(e.target() != null ? e.target() : n.target())
        .build();
    return new Change(row, row.next(next, null, Instant.EPOCH), null);
  }

  /**
   * Gives a lease back without an attempt: PENDING if never tried in this budget, AWAITING_CONFIRM
   * if delivered (a confirm redelivery not made stays confirmable), else FAILED.
   */
  public static Change release(NoticeRow row, Instant now) {
    return confirmable(move(row, unheldStatus(row), row.notice().nextAttemptAt(), now), now);
  }

  /** Back to PENDING, due now, with a fresh attempt budget (manual resend and bulk recover). */
  public static Change resend(NoticeRow row, Instant now) {
    NoticeRow fresh = row.withRetryBase(row.notice().attempts());
    Notice n = fresh.notice();
    Notice next = n.with().status(NoticeStatus.PENDING).nextAttemptAt(now).updatedAt(now).finishedAt(null).build();
    return new Change(row, fresh.next(next, null, Instant.EPOCH), null);
  }
}
