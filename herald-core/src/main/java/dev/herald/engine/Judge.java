package dev.herald.engine;

import dev.herald.DeliveryResult;
import dev.herald.EngineSettings;
import dev.herald.NoticeDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The third stage, judge: turns an attempt's result into the notice's next state ({@link
 * Transitions}) and the receiver's circuit; a deferral due within the look-ahead stays in memory,
 * anything else becomes a {@link Recorder.Pending} outcome for the recorder.
 */
final class Judge {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final EngineSettings settings;
  private final Clock clock;
  private final RandomGenerator random;
  private final Ownership ownership;
  private final ReceiverCircuits circuits;
  private final Listeners listeners;
  private final BooleanSupplier running;

  Judge(EngineSettings settings, Clock clock, RandomGenerator random, Ownership ownership, ReceiverCircuits circuits,
      Listeners listeners, BooleanSupplier running) {
    this.settings = settings;
    this.clock = clock;
    this.random = random;
    this.ownership = ownership;
    this.circuits = circuits;
    this.listeners = listeners;
    this.running = running;
  }

  /**
   * The outcome to record, or null for a deferral kept in memory. Never throws and never leaves the
   * notice behind: if the outcome cannot even be computed, the notice is released as it was.
   */
  Recorder.Pending judge(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    ownership.holdings().recording(h);
    try {
      if (h.definition != null && !confirmationOverdue(h)) {
        circuits.record(SyncFirst.receiverOf(h.definition, h.row.notice().target()), result);
      }
      if (keepDeferralInMemory(h, result)) {
        return null;
      }
      return outcome(h, result, started, took);
    } catch (Throwable t) {
      listeners.onEngineError("judge outcome of notice " + h.id(), t);
      log.error("Herald node {}: cannot judge the outcome of notice {}; releasing it", settings.nodeId(), h.id(), t);
      return new Recorder.Pending(h, Transitions.release(h.row, clock.instant()), null);
    }
  }

  /** A confirm redelivery whose attempts are used up: the notice goes DEAD instead of being sent again. */
  static boolean confirmationOverdue(HeldNotice h) {
    return h.definition != null && Transitions.wasDelivered(h.row)
        && h.definition.attemptsExhausted(h.row.attemptsInBudget());
  }

  /**
   * A deferral (endpoint busy, circuit open) due within the look-ahead stays in memory as it is: no
   * row is rewritten while a notice waits for its receiver, so database writes grow with deliveries,
   * not with the backlog.
   */
  private boolean keepDeferralInMemory(HeldNotice h, DeliveryResult result) {
    if (result.outcome() != DeliveryResult.Outcome.DEFER || !running.getAsBoolean() || h.definition == null
        || !ownership.keepsUnder(h.owner())) {
      return false;
    }
    long due = clock.millis() + Transitions.bounded(result.retryAfter()).toMillis();
    if (due > clock.millis() + settings.lookAhead().toMillis()) {
      return false;
    }
    ownership.holdings().reschedule(h, new HeldNotice(h.row, h.definition, due));
    return true;
  }

  private Recorder.Pending outcome(HeldNotice h, DeliveryResult result, Instant started, Duration took) {
    Instant now = clock.instant();
    NoticeDefinition def = h.definition != null ? h.definition : orphanDefinition(h);
    if (confirmationOverdue(h)) {
      Transitions.AfterAttempt dead = Transitions.unconfirmed(h.row, def, now);
      return new Recorder.Pending(h, dead.change(), dead.alert());
    }
    // A retry stays held only under the current incarnation: a retired one starts nothing more.
    Instant keepUntil = running.getAsBoolean() && ownership.keepsUnder(h.owner()) ? now.plus(settings.lookAhead()) : null;
    Transitions.AfterAttempt after = Transitions.afterAttempt(
        new Transitions.AttemptFacts(h.row, def, result, started, took, settings.nodeId()),
        now, keepUntil, now.plus(settings.nodeTimeout()), random);
    return new Recorder.Pending(h, after.change(), after.alert());
  }

  private static NoticeDefinition orphanDefinition(HeldNotice h) {
    return NoticeDefinition.builder(h.row.notice().definition()).handler("-").maxAttempts(1).build();
  }
}
