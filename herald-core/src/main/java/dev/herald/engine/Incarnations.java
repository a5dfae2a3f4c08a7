package dev.herald.engine;

import dev.herald.HeraldException;
import dev.herald.HeraldListener;
import dev.herald.engine.Incarnation.State;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's incarnations, for {@link Ownership}: the current one, which claims and starts, and the
 * retired ones still remembered while something of them is held. A token claims only once its node
 * row has committed and while within its fence; the heartbeat renews the current token and retires
 * it when its beat was refused or came back after the fence; a retired token keeps beating while
 * anything of it is held, then its last rows are released and its node row forgotten.
 */
final class Incarnations {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final NoticeStore store;
  private final Clock clock;
  private final String nodeId;
  private final long timeoutMillis;
  private final Duration reach;
  private final Listeners listeners;
  private final Holdings holdings;
  /** Lets go of a retired incarnation's unstarted notices (their rows are released by the poller). */
  private final Consumer<List<HeldNotice>> letGo;
  /** Wakes the poller: a new incarnation may claim. */
  private final Runnable wake;
  private volatile Incarnation current;
  private final List<Incarnation> retired = new CopyOnWriteArrayList<>();

  Incarnations(NoticeStore store, Clock clock, String nodeId, Duration nodeTimeout, Duration reach,
      Listeners listeners, Holdings holdings, Consumer<List<HeldNotice>> letGo, Runnable wake) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.timeoutMillis = nodeTimeout.toMillis();
    this.reach = reach;
    this.listeners = listeners;
    this.holdings = holdings;
    this.letGo = letGo;
    this.wake = wake;
    this.current = new Incarnation(nodeId);
  }


  /** Registers the current incarnation now (at start); throws if the database cannot. */
  void register() {
    Incarnation inc = current;
    registerOrThrow(inc);
  }

  /** Whether the current incarnation is registered; registers it first if not (manual driving). */
  boolean ensureRegistered() {
    Incarnation inc = current;
    return inc.state == State.LIVE || tryRegister(inc);
  }

  private boolean tryRegister(Incarnation inc) {
    try {
      registerOrThrow(inc);
      return true;
    } catch (RuntimeException e) {
      listeners.onEngineError("register " + inc.token, e);
      log.warn("Herald node {}: cannot register {} yet ({}); claiming waits for it", nodeId, inc.token, e.getMessage());
      return false;
    }
  }

  private void registerOrThrow(Incarnation inc) {
    long now = clock.millis();
    store.registerNode(inc.token, nodeId, Instant.ofEpochMilli(now));
    synchronized (this) {
      if (inc == current && inc.state == State.NEW) {
        inc.fencedAt = now + fenceAfter();
        inc.state = State.LIVE;
      }
    }
  }

  /**
   * The token claims go under, or null while the current incarnation is not registered or is past
   * its fence (its last beat too old to be sure the database still counts it alive: it would see its
   * own notices as free, and what it claimed it could not start anyway).
   */
  String claimToken() {
    Incarnation inc = current;
    return inc.state == State.LIVE && clock.millis() < inc.fencedAt ? inc.token : null;
  }

  /**
   * The token manual driving ({@code runDue}) claims under: the registered current one, fence or
   * not, since no heartbeat runs and the settable clock jumps as the test wants.
   */
  String manualToken() {
    Incarnation inc = current;
    return inc.state == State.LIVE ? inc.token : null;
  }

  /** The current incarnation's token, registered or not (for logs). */
  String currentToken() {
    return current.token;
  }

  /** Whether an attempt may start now for {@code h}: held under the live current token, within its fence. */
  boolean mayStart(HeldNotice h, long nowMillis) {
    Incarnation inc = current;
    return inc.state == State.LIVE && inc.token.equals(h.owner()) && nowMillis < inc.fencedAt;
  }

  /** Whether a notice held under {@code owner} may stay held after its outcome (a retry kept in memory). */
  boolean keepsUnder(String owner) {
    Incarnation inc = current;
    return inc.state == State.LIVE && inc.token.equals(owner);
  }

  /** Whether {@code owner} is one of this node's incarnations, current or retired but still remembered. */
  boolean isMine(String owner) {
    if (owner == null) {
      return false;
    }
    if (current.token.equals(owner)) {
      return true;
    }
    for (Incarnation inc : retired) {
      if (inc.token.equals(owner)) {
        return true;
      }
    }
    return false;
  }

  /** Every token of this node still remembered: the current one and the retired ones. */
  List<String> tokens() {
    List<String> out = new ArrayList<>();
    out.add(current.token);
    retired.forEach(inc -> out.add(inc.token));
    return out;
  }

  /**
   * The heartbeat: registers the current incarnation if it is not yet, else renews it, retiring it
   * if the beat was refused or came back too late to be sure no other node took over meanwhile; then
   * beats the retired ones that still hold something, and forgets those that hold nothing.
   */
  void heartbeat() {
    tendRetired(); // first: attempts still run under them, and a slow beat of the current one must not delay theirs
    Incarnation inc = current;
    if (inc.state == State.NEW) {
      if (tryRegister(inc)) {
        wake.run();
      }
    } else {
      long now = clock.millis();
      boolean refreshed = store.heartbeat(inc.token, Instant.ofEpochMilli(now), Instant.ofEpochMilli(now - timeoutMillis));
      boolean inTime = refreshed && clock.millis() < inc.fencedAt;
      synchronized (this) {
        if (inc == current && inTime) {
          inc.fencedAt = now + fenceAfter();
          inc = null;
        }
      }
      if (inc != null) {
        retire(inc, refreshed);
      }
    }
  }

  /** Replaces the current incarnation, because its beat was refused ({@code !stillBeating}) or came back late. */
  private void retire(Incarnation inc, boolean stillBeating) {
    synchronized (this) {
      if (inc != current) {
        return;
      }
      inc.fencedAt = 0;
      inc.state = stillBeating ? State.RETIRING : State.LAPSED;
      retired.add(inc);
      current = new Incarnation(nodeId);
    }
    if (stillBeating) {
      beatRetired(inc); // at once: the late answer used up most of its row's freshness
    }
    List<HeldNotice> unstarted = holdings.takeUnstartedOf(inc.token);
    letGo.accept(unstarted);
    String why = stillBeating
        ? "its heartbeat came back after the fence (a slow database or a clock step); it keeps beating until what"
            + " runs under it is recorded"
        : "it missed its heartbeats for longer than the node timeout; other nodes may have taken over its notices";
    listeners.onEngineError("heartbeat", new HeraldException("node " + nodeId + ": incarnation " + inc.token
        + " retired: " + why + "; continuing as " + current.token + " (" + unstarted.size()
        + " unstarted notice(s) released)"));
    log.warn("Herald node {}: retired {}: {}; continuing as {}, released {} unstarted notice(s)", nodeId, inc.token,
        why, current.token, unstarted.size());
    if (!stillBeating) {
      lapsedWhileRunning(inc);
    }
    if (tryRegister(current)) {
      wake.run();
    }
  }

  /** Beats the retired incarnations that still hold something; releases and forgets those that hold nothing. */
  private void tendRetired() {
    for (Incarnation inc : retired) {
      try {
        if (holdings.countOf(inc.token) == 0) {
          Instant now = clock.instant();
          store.releaseHeld(inc.token, now, now.plus(reach));
          store.forgetNode(inc.token);
          retired.remove(inc);
          log.info("Herald node {}: forgot retired incarnation {}", nodeId, inc.token);
        } else if (inc.state == State.RETIRING) {
          beatRetired(inc);
        }
      } catch (RuntimeException e) {
        listeners.onEngineError("tend retired incarnation " + inc.token, e);
      }
    }
  }

  /** Renews a retired incarnation's row while something of it is held; a refused beat makes it lapsed. */
  private void beatRetired(Incarnation inc) {
    try {
      long now = clock.millis();
      if (!store.heartbeat(inc.token, Instant.ofEpochMilli(now), Instant.ofEpochMilli(now - timeoutMillis))) {
        inc.state = State.LAPSED;
        lapsedWhileRunning(inc);
      }
    } catch (RuntimeException e) {
      listeners.onEngineError("beat retired incarnation " + inc.token, e);
    }
  }

  /**
   * The step {@link HeraldListener#onEngineError} is told when an incarnation lapsed while attempts
   * under it still ran: another node may deliver those notices at the same time.
   */
  static final String LAPSE_WHILE_DELIVERING = "lapse while delivering";

  /**
   * Says so when an incarnation lapsed with attempts under it still running: its heartbeat came later
   * than the node timeout (a stalled database, a starved or paused process), so other nodes may now
   * deliver those notices while they run here. Outside the budget this node relies on, and worth an
   * operator's attention.
   */
  private void lapsedWhileRunning(Incarnation inc) {
    int running = holdings.runningOf(inc.token);
    if (running == 0) {
      return;
    }
    String message = "node " + nodeId + ": incarnation " + inc.token + " lapsed with " + running + " attempt(s)"
        + " under it still running: its heartbeat came later than the node timeout (a stalled database, a starved"
        + " or paused process), so other nodes may deliver those notices again while they run here";
    listeners.onEngineError(LAPSE_WHILE_DELIVERING, new HeraldException(message));
    log.error("Herald {}", message);
  }

  private long fenceAfter() {
    return timeoutMillis * 3 / 4;
  }
}
