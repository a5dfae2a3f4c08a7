package dev.herald.engine;

import dev.herald.spi.Change;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A part of the {@link DeliveryEngine} (the claim loop, firing, outcomes, intake after commit, node
 * upkeep): the engine's collaborators under their usual names, and the steps parts share.
 */
abstract class EnginePart {
  /** The engine's logger: its parts log under its name. */
  protected static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  protected final EngineCore core;
  protected final EngineSettings settings;
  protected final NoticeStore store;
  protected final Clock clock;
  protected final RandomGenerator random;
  protected final Listeners listeners;
  protected final ChannelRegistry channels;
  protected final DefinitionCache definitions;
  protected final Intake intake;
  protected final DueTimer timer;
  protected final Semaphore room;
  protected final Holdings holdings;
  protected final Liveness liveness;
  protected final Semaphore deliverySlots;
  protected final OutcomeWriter writer;
  protected final ReceiverCircuits circuits;
  protected final OutcomeWaiters waiters;

  EnginePart(EngineCore core) {
    this.core = core;
    this.settings = core.settings;
    this.store = core.store;
    this.clock = core.clock;
    this.random = core.random;
    this.listeners = core.listeners;
    this.channels = core.channels;
    this.definitions = core.definitions;
    this.intake = core.intake;
    this.timer = core.timer;
    this.room = core.room;
    this.holdings = core.holdings;
    this.liveness = core.liveness;
    this.deliverySlots = core.deliverySlots;
    this.writer = core.writer;
    this.circuits = core.circuits;
    this.waiters = core.waiters;
  }

  protected final boolean isRunning() {
    return core.isRunning();
  }

  protected final void requestPoll() {
    core.requestPoll();
  }

  protected final void releaseQuietly(List<Change> releases, String what) {
    core.releaseQuietly(releases, what);
  }

  protected final void abandonIncarnation(String step) {
    core.abandonIncarnation(step);
  }

  protected static void pause(long millis) {
    EngineCore.pause(millis);
  }

  /** A confirm redelivery whose attempts are used up: the notice goes DEAD instead of being sent again. */
  protected static boolean confirmationOverdue(HeldNotice h) {
    return h.definition != null && Transitions.wasDelivered(h.row)
        && h.definition.attemptsExhausted(h.row.attemptsInBudget());
  }
}
