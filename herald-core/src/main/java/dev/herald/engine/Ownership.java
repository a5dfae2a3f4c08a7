package dev.herald.engine;

import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
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
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of "what this node holds": its incarnations (the tokens notice rows name as their
 * owner) and the notices held in memory under them ({@link Holdings}).
 *
 * <p><b>Incarnations</b> ({@link Incarnations}): a token claims only once its {@code herald_node}
 * row has committed, so no other node ever sees a claim by a token it thinks dead; a token that must
 * go is <em>retired</em>, never dropped: nothing new starts under it, what it held unstarted is let
 * go, it keeps beating while anything of it is still held, and only then is it forgotten.
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
  private final Duration reach;
  private final int sweepLimit;
  private final long sweepEveryNanos;
  private final Listeners listeners;
  private final Semaphore room;
  private final Holdings holdings;
  /** Wakes the poller: a new incarnation may claim, rows wait to be released. */
  private volatile Runnable wake = () -> {};

  private final Incarnations incarnations;
  private final Set<UUID> suspects = ConcurrentHashMap.newKeySet();
  /** Rows let go by threads that must not wait for the database (timer, heartbeat): the poller releases them. */
  private final java.util.Queue<NoticeRow> toRelease = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean sweepRequested;
  private volatile long nextSweepNanos;
  private final long revocationEveryNanos;
  private volatile long nextRevocationsNanos;

  /**
   * @param reach how far past now a held notice can be due (look-ahead plus node timeout): the
   *     range of the due index a sweep reads
   */
  Ownership(NoticeStore store, Clock clock, String nodeId, Duration nodeTimeout, Duration reach, int maxHeld,
      Duration sweepEvery, Listeners listeners) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.reach = reach;
    this.sweepLimit = maxHeld + 1_000;
    this.sweepEveryNanos = sweepEvery.toNanos();
    this.listeners = listeners;
    this.room = new Semaphore(maxHeld);
    this.holdings = new Holdings(new DueTimer(), room);
    this.incarnations = new Incarnations(store, clock, nodeId, nodeTimeout, reach, listeners, holdings, this::letGo,
        () -> wake.run());
    this.nextSweepNanos = System.nanoTime() + sweepEveryNanos;
    this.revocationEveryNanos = nodeTimeout.toNanos() / 4;
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
    incarnations.register();
  }

  /** Whether the current incarnation is registered; registers it first if not (manual driving). */
  boolean ensureRegistered() {
    return incarnations.ensureRegistered();
  }

  /** See {@link Incarnations#claimToken}. */
  String claimToken() {
    return incarnations.claimToken();
  }

  /** See {@link Incarnations#manualToken}. */
  String manualToken() {
    return incarnations.manualToken();
  }

  String currentToken() {
    return incarnations.currentToken();
  }

  /** Whether an attempt may start now for {@code h}: held under the live current token, within its fence. */
  boolean mayStart(HeldNotice h, long nowMillis) {
    return incarnations.mayStart(h, nowMillis);
  }

  /** Whether a notice held under {@code owner} may stay held after its outcome (a retry kept in memory). */
  boolean keepsUnder(String owner) {
    return incarnations.keepsUnder(owner);
  }

  /** Whether {@code owner} is one of this node's incarnations, current or retired but still remembered. */
  boolean isMine(String owner) {
    return incarnations.isMine(owner);
  }

  /** Every token of this node still remembered. */
  List<String> tokens() {
    return incarnations.tokens();
  }

  /** The heartbeat: see {@link Incarnations#heartbeat}. */
  void heartbeat() {
    incarnations.heartbeat();
    holdings.expireSupersessions(clock.millis() - 60_000);
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
    int released = 0;
    if (!stray.isEmpty()) {
      if (Trace.on()) {
        Trace.log("strays of {}: {}", owners, Trace.rows(stray));
      }
      List<Change> releases = stray.stream().map(r -> Transitions.release(r, clock.instant())).toList();
      try {
        // Most "strays" of a sweep are notices recorded between its read and its look at memory: their
        // releases find the row moved on and write nothing. Only the ones written were really stranded.
        released = (int) store.apply(releases).stream().filter(dev.herald.spi.Applied::written).count();
      } catch (RuntimeException e) {
        stray.forEach(r -> suspects.add(r.id()));
        throw e;
      }
      if (released > 0) {
        log.warn("Herald node {}: released {} notice(s) held under its own tokens by no memory (a write whose"
            + " answer was lost, or a failed release)", nodeId, released);
      }
    }
    checked.forEach(suspects::remove);
    return released;
  }

  // ================================================================ revocations

  /**
   * Answers what operators on other nodes asked of this node's tokens, at most once per {@code
   * revocationEvery}: an unstarted notice is let go (its row released), one not in memory is suspected
   * (reconciliation releases it if one of these tokens still owns it), one being delivered is answered
   * once its outcome is recorded. On the poller's thread, never the heartbeat's: no beat waits for it.
   */
  void answerRevocations() {
    if (System.nanoTime() - nextRevocationsNanos < 0) {
      return;
    }
    nextRevocationsNanos = System.nanoTime() + revocationEveryNanos;
    List<UUID> asked = new ArrayList<>();
    for (String token : tokens()) {
      asked.addAll(store.revocationsFor(token));
    }
    if (asked.isEmpty()) {
      return;
    }
    List<HeldNotice> taken = new ArrayList<>();
    List<UUID> answered = new ArrayList<>();
    for (UUID id : asked) {
      Holdings.Taken t = holdings.take(id);
      switch (t.result()) {
        case TAKEN -> taken.add(t.notice());
        case NOT_HELD -> suspect(id);
        case BUSY -> {
          continue; // answered once its attempt is recorded
        }
      }
      answered.add(id);
    }
    letGo(taken);
    store.clearRevocations(answered);
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
}
