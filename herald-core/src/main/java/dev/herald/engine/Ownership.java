package dev.herald.engine;

import dev.herald.HeraldException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.engine.Incarnation.State;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of "what this node holds": its incarnations (the tokens notice rows name as their
 * owner) and the notices held in memory under them ({@link Holdings}).
 *
 * <p><b>Incarnations.</b> A token claims only once its {@code herald_node} row has committed, so no
 * other node ever sees a claim by a token it thinks dead. The heartbeat renews the current token
 * and fences it: no attempt starts later than three quarters of the node timeout after the last
 * beat that came back in time. A token that must go (its beat came back too late, or was refused)
 * is <em>retired</em>, never dropped: nothing new starts under it, what it held unstarted is
 * released, it keeps beating while anything of it is still held (an attempt running, an outcome
 * being written), and only then are its last rows released and its node row forgotten.
 *
 * <p><b>Reconciliation.</b> A claim, release or operator write whose answer was lost may leave rows
 * owned by this node's tokens that no memory holds; nobody else would claim them while the token
 * beats. Whoever meets such a doubt says so ({@link #doubtClaims}, {@link #suspect}); the poller then
 * {@linkplain #reconcile reconciles}: it reads the rows its tokens own (those suspected, or all of
 * them due within reach, through the due index), and releases those memory does not hold. It also
 * sweeps every {@code sweepEvery}, whatever happened.
 */
final class Ownership {
  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);
  /** Suffix of the owner of notices pre-claimed in a caller's transaction, until adopted after its commit. */
  static final String PROVISIONAL = "*";

  private final NoticeStore store;
  private final Clock clock;
  private final String nodeId;
  private final long timeoutMillis;
  private final Duration reach;
  private final int sweepLimit;
  private final long sweepEveryNanos;
  private final Listeners listeners;
  private final Semaphore room;
  private final Holdings holdings;
  /** Wakes the poller: a new incarnation may claim, rows wait to be released. */
  private volatile Runnable wake = () -> {};

  private volatile Incarnation current;
  private final List<Incarnation> retired = new CopyOnWriteArrayList<>();
  private final Set<UUID> suspects = ConcurrentHashMap.newKeySet();
  /** Rows let go by threads that must not wait for the database (timer, heartbeat): the poller releases them. */
  private final java.util.Queue<NoticeRow> toRelease = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean sweepRequested;
  private volatile long nextSweepNanos;

  /**
   * @param reach how far past now a held notice can be due (look-ahead plus node timeout): the
   *     range of the due index a sweep reads
   */
  Ownership(NoticeStore store, Clock clock, String nodeId, Duration nodeTimeout, Duration reach, int maxHeld,
      Duration sweepEvery, Listeners listeners) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.timeoutMillis = nodeTimeout.toMillis();
    this.reach = reach;
    this.sweepLimit = maxHeld + 1_000;
    this.sweepEveryNanos = sweepEvery.toNanos();
    this.listeners = listeners;
    this.room = new Semaphore(maxHeld);
    this.holdings = new Holdings(new DueTimer(), room);
    this.current = new Incarnation(nodeId);
    this.nextSweepNanos = System.nanoTime() + sweepEveryNanos;
  }

  /** How to wake the poller, which claims for a new incarnation and releases what others let go. */
  void wakeWith(Runnable r) {
    this.wake = r;
  }

  Holdings holdings() {
    return holdings;
  }

  DueTimer timer() {
    return holdings.timer();
  }

  // ================================================================ room

  /** Takes up to {@code n} permits of room if all are free; see {@link Holdings#add}. */
  boolean reserve(int n) {
    return room.tryAcquire(n);
  }

  void unreserve(int n) {
    room.release(n);
  }

  int freeRoom() {
    return room.availablePermits();
  }

  // ================================================================ incarnations

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

  /**
   * For {@link DeliveryEngine#runDue} on a node that is not started: renews the current incarnation at
   * the clock's time, however far a settable clock moved since the last run (no heartbeat thread runs
   * to keep it fresh). Registration is idempotent, so it also revives a row that went stale meanwhile.
   */
  boolean renewForManualRun() {
    Incarnation inc = current;
    if (inc.state != State.LIVE) {
      return tryRegister(inc);
    }
    long now = clock.millis();
    store.registerNode(inc.token, nodeId, Instant.ofEpochMilli(now));
    synchronized (this) {
      if (inc == current) {
        inc.fencedAt = now + fenceAfter();
      }
    }
    return true;
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
    tendRetired();
    holdings.expireSupersessions(clock.millis() - 60_000);
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
    List<HeldNotice> unstarted = holdings.takeUnstartedOf(inc.token);
    letGo(unstarted);
    String why = stillBeating
        ? "its heartbeat came back after the fence (a slow database or a clock step); it keeps beating until what"
            + " runs under it is recorded"
        : "it missed its heartbeats for longer than the node timeout; other nodes may have taken over its notices";
    listeners.onEngineError("heartbeat", new HeraldException("node " + nodeId + ": incarnation " + inc.token
        + " retired: " + why + "; continuing as " + current.token + " (" + unstarted.size()
        + " unstarted notice(s) released)"));
    log.warn("Herald node {}: retired {}: {}; continuing as {}, released {} unstarted notice(s)", nodeId, inc.token,
        why, current.token, unstarted.size());
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
          long now = clock.millis();
          if (!store.heartbeat(inc.token, Instant.ofEpochMilli(now), Instant.ofEpochMilli(now - timeoutMillis))) {
            inc.state = State.LAPSED;
          }
        }
      } catch (RuntimeException e) {
        listeners.onEngineError("tend retired incarnation " + inc.token, e);
      }
    }
  }

  private long fenceAfter() {
    return timeoutMillis * 3 / 4;
  }

  // ================================================================ holding

  /**
   * Holds a claimed or adopted notice (its permit already reserved). False, with the permit given
   * back, if it cannot be held: the caller releases the row.
   */
  boolean hold(NoticeRow row, NoticeDefinition definition) {
    if (!keepsUnder(row.owner())) {
      room.release(); // claimed under an incarnation retired meanwhile: nothing starts under it
      return false;
    }
    return holdings.add(new HeldNotice(row, definition));
  }

  // ================================================================ doubt and reconciliation

  /** A claim or adoption of unknown outcome: rows may be owned here and held by no memory. */
  void doubtClaims() {
    sweepRequested = true;
  }

  /** A write of notice {@code id} (release, operator change) of unknown outcome: its row may be owned here and held by nobody. */
  void suspect(UUID id) {
    suspects.add(id);
  }

  /** Whether a doubt waits to be reconciled, rows wait to be released, or the periodic sweep is due. */
  boolean reconcileDue() {
    return sweepRequested || !suspects.isEmpty() || !toRelease.isEmpty() || System.nanoTime() - nextSweepNanos >= 0;
  }

  /**
   * Lets go of notices taken out of the pipeline, from a thread that must not wait for the database
   * (the timer, the heartbeat): they leave memory now, and the poller releases their rows.
   */
  void letGo(List<HeldNotice> taken) {
    if (taken.isEmpty()) {
      return;
    }
    for (HeldNotice h : taken) {
      toRelease.add(h.row);
      holdings.done(h);
    }
    wake.run();
  }

  /**
   * Compares the rows this node's tokens own with what its memory holds, and releases the ones it
   * does not hold (a later claim, by any node, takes them). Reads only what doubt points at, or sweeps
   * the due index within reach. Returns how many were released; throws if the database cannot
   * answer (the doubt stays, for the next call).
   */
  int reconcile() {
    if (!reconcileDue()) {
      return 0;
    }
    List<NoticeRow> letGo = new ArrayList<>();
    for (NoticeRow r; (r = toRelease.poll()) != null; ) {
      letGo.add(r);
    }
    release(letGo, "release notices let go");
    boolean sweep = sweepRequested || System.nanoTime() - nextSweepNanos >= 0;
    List<String> owners = tokens();
    List<UUID> checked = new ArrayList<>(suspects);
    List<NoticeRow> owned = new ArrayList<>();
    if (sweep) {
      sweepRequested = false; // before the read: a doubt arising during it asks again
      nextSweepNanos = System.nanoTime() + sweepEveryNanos;
      try {
        owned.addAll(store.heldBy(owners, clock.instant().plus(reach), sweepLimit));
      } catch (RuntimeException e) {
        sweepRequested = true;
        throw e;
      }
      if (owned.size() == sweepLimit) {
        sweepRequested = true; // more may wait
      }
    } else {
      for (UUID id : checked) {
        Optional<NoticeRow> row = store.find(id);
        row.filter(r -> r.status() == NoticeStatus.IN_FLIGHT && owners.contains(r.owner())).ifPresent(owned::add);
      }
    }
    List<NoticeRow> stray = new ArrayList<>();
    for (NoticeRow row : owned) {
      if (holdings.isHeld(row.id())) {
        continue;
      }
      // Not held: superseded, so that a hold of this version on its way into memory (an adoption) is
      // refused from now on, or taken out if it got in meanwhile unstarted; held after that means its
      // attempt runs already: not a stray.
      holdings.supersede(row.id(), row.version(), clock.millis());
      if (!holdings.isHeld(row.id())) {
        stray.add(row);
      }
    }
    if (!stray.isEmpty()) {
      if (Trace.on()) {
        Trace.log("strays of {}: {}", owners, Trace.rows(stray));
      }
      List<Change> releases = stray.stream().map(r -> Transitions.release(r, clock.instant())).toList();
      try {
        store.apply(releases);
      } catch (RuntimeException e) {
        stray.forEach(r -> suspects.add(r.id()));
        throw e;
      }
      log.warn("Herald node {}: released {} notice(s) held under its own tokens by no memory (a write whose answer"
          + " was lost, or a failed release): {}", nodeId, stray.size(),
          stray.stream().limit(10).map(r -> r.id().toString()).toList());
    }
    checked.forEach(suspects::remove);
    return stray.size();
  }

  // ================================================================ releases

  /**
   * Gives rows this node lets go back, version-checked; a failure leaves each one suspect, so that
   * reconciliation releases it once the database answers.
   */
  void release(List<NoticeRow> rows, String what) {
    if (rows.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    if (Trace.on()) {
      Trace.log("release ({}): {}", what, Trace.rows(rows));
    }
    try {
      for (int from = 0; from < rows.size(); from += 500) {
        store.apply(rows.subList(from, Math.min(rows.size(), from + 500)).stream()
            .map(r -> Transitions.release(r, now)).toList());
      }
    } catch (RuntimeException e) {
      rows.forEach(r -> suspects.add(r.id()));
      listeners.onEngineError(what, e);
      log.warn("Herald node {}: cannot {} ({}); released later, once the database answers", nodeId, what,
          e.getMessage());
    }
  }

  // ================================================================ shutdown

  /**
   * At a graceful stop, once nothing runs: releases what the current and retired tokens still own
   * (a kept retry, a row a lost answer left) and forgets them, so that nothing waits for the node timeout.
   */
  void signOff() {
    Instant end = clock.instant();
    for (String token : tokens()) {
      store.releaseHeld(token, end, end.plus(reach));
      store.releaseHeld(token + PROVISIONAL, end, end.plus(reach));
      store.forgetNode(token);
    }
  }

  /** The ages of retired incarnations waiting to be forgotten (for tests and stats): their tokens. */
  List<String> retiredTokens() {
    return retired.stream().map(inc -> inc.token).toList();
  }
}
