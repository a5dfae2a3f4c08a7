package dev.herald.engine;

import static dev.herald.engine.Ownership.PROVISIONAL;

import dev.herald.EngineSettings;
import dev.herald.FieldPath;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.Ordering;
import dev.herald.engine.DeliveryEngine.Enqueued;
import dev.herald.engine.DeliveryEngine.Hold;
import dev.herald.StoreException;
import dev.herald.spi.InsertResult;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Notices written in a caller's transaction: validated and inserted with the caller's connection
 * ({@link #write}), those due soon pre-claimed under this node's provisional owner; after the commit
 * adopted and fired from memory ({@link #committed}), or given back after a rollback. In Herald's own
 * transactions ({@link Hold#OWN}) they are pre-claimed under the token itself and held after the
 * commit without the adoption's round trip.
 */
final class CommitIntake {
  /** What errors call a list of requests: {@code notices[2].payload} is the third one's payload. */
  private static final FieldPath BATCH = FieldPath.of("notices");

  private final EngineSettings settings;
  private final Clock clock;
  private final NoticeStore store;
  private final Intake intake;
  private final DefinitionCache definitions;
  private final Ownership ownership;
  private final Listeners listeners;
  private final PollSignal poll;
  private final BooleanSupplier running;
  private final IntSupplier dueBacklog;

  CommitIntake(EngineSettings settings, Clock clock, NoticeStore store, Intake intake, DefinitionCache definitions,
      Ownership ownership, Listeners listeners, PollSignal poll, BooleanSupplier running, IntSupplier dueBacklog) {
    this.settings = settings;
    this.clock = clock;
    this.store = store;
    this.intake = intake;
    this.definitions = definitions;
    this.ownership = ownership;
    this.listeners = listeners;
    this.poll = poll;
    this.running = running;
    this.dueBacklog = dueBacklog;
  }

  private boolean isRunning() {
    return running.getAsBoolean();
  }

  /**
   * Validates every request (nothing is written if one is bad), then inserts them with the
   * caller's connection, without committing. Unless {@code hold} is {@link Hold#NONE}, notices due
   * within the look-ahead are leased to this node at insert, to be fired from memory once {@link
   * #committed} is called.
   */
  List<Enqueued> write(Connection connection, List<NoticeRequest> requests, Hold hold) {
    int backlog = dueBacklog.getAsInt();
    if (settings.maxBacklog() > 0 && backlog > settings.maxBacklog()) {
      throw new dev.herald.BackPressureException(backlog, settings.maxBacklog());
    }
    List<NoticeRow> rows = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      rows.add(intake.newRow(requests.get(i), requests.size() == 1 ? FieldPath.ROOT : BATCH.at(i)));
    }
    List<Enqueued> out = new ArrayList<>(rows.size());
    try {
      Instant horizon = clock.instant().plus(settings.lookAhead());
      // Pre-claimed only under a registered incarnation, adopted later under the same token.
      String token = hold != Hold.NONE && isRunning() ? ownership.claimToken() : null;
      String owner = token == null ? null : hold == Hold.OWN ? token : token + PROVISIONAL;
      List<java.util.Map.Entry<String, dev.herald.Notice>> ordered = new ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        NoticeRow row = rows.get(i);
        String orderingKey = requests.get(i).orderingKey();
        // An ordered notice waits for the claim, which knows whether earlier ones of its key are done.
        boolean reserve = token != null && orderingKey == null
            && !row.notice().nextAttemptAt().isAfter(horizon)
            && settings.handles(row.notice().definition(), row.shard()) && ownership.reserve(1);
        NoticeRow toInsert = reserve
            ? Intake.preclaimed(row, owner, clock.instant().plus(settings.nodeTimeout()))
            : row;
        out.add(new Enqueued(toInsert, true, reserve));
      }
      List<NoticeRow> toInsert = new ArrayList<>(out.size());
      for (Enqueued e : out) {
        toInsert.add(e.row());
      }
      List<InsertResult> results = store.insertAll(connection, toInsert); // multi-row: one round trip per 100
      for (int i = 0; i < results.size(); i++) {
        InsertResult result = results.get(i);
        if (!result.created()) {
          if (out.get(i).reserved()) {
            ownership.unreserve(1);
          }
          out.set(i, new Enqueued(result.row(), false, false));
        } else if (requests.get(i).orderingKey() != null) {
          ordered.add(java.util.Map.entry(requests.get(i).orderingKey(), rows.get(i).notice()));
        }
      }
      // Keys in one order in every transaction, so that two enqueueing the same keys cannot deadlock.
      ordered.sort(java.util.Map.Entry.comparingByKey());
      for (var e : ordered) {
        boolean holdOnDead = definitions.require(e.getValue().definition(), "definition").ordering() == Ordering.WAIT;
        store.enterOrder(connection, e.getValue().id(), e.getKey(), holdOnDead);
      }
      return out;
    } catch (RuntimeException e) {
      rolledBack(out);
      throw e;
    }
  }

  /**
   * The caller's transaction committed: fire what this engine pre-claimed, from memory. Never
   * throws: the caller's transaction has committed, and a notice this cannot fire at once is
   * delivered by the poll.
   *
   * <p>Callers committing at the same time share one adoption: each queues what it wrote, and
   * whichever gets the lock adopts everything queued in one transaction (a lone caller adopts its
   * own, before this returns). A caller whose notices another one adopts returns at once.
   */
  void committed(List<Enqueued> written) {
    if (written.stream().noneMatch(CommitIntake::provisional)) {
      settle(List.of(written), ownHeld(written)); // nothing to adopt
      return;
    }
    toAdopt.add(written);
    adoptQueued(LEADER_ROUNDS);
  }

  private static boolean provisional(Enqueued e) {
    return e.reserved() && e.row().owner().endsWith(PROVISIONAL);
  }

  /**
   * The reserved notices written under the token itself ({@link Hold#OWN}): committed, so held as
   * written. A reconciliation that met one before it got here superseded its version, and the hold
   * is refused.
   */
  private static Map<UUID, NoticeRow> ownHeld(List<Enqueued> written) {
    Map<UUID, NoticeRow> out = new java.util.HashMap<>();
    for (Enqueued e : written) {
      if (e.reserved() && !provisional(e)) {
        out.put(e.notice().id(), e.row());
      }
    }
    return out;
  }

  /** A caller adopts for others at most this many times before handing the rest to a thread of its own. */
  private static final int LEADER_ROUNDS = 4;

  private final java.util.Queue<List<Enqueued>> toAdopt = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.concurrent.locks.ReentrantLock adopting = new java.util.concurrent.locks.ReentrantLock();

  private void adoptQueued(int rounds) {
    // Whoever holds the lock looks at the queue again after unlock(), or leaves that to a thread of
    // its own: a caller whose tryLock() failed may have queued a list meanwhile.
    while (!toAdopt.isEmpty() && adopting.tryLock()) {
      try {
        List<List<Enqueued>> batch = new ArrayList<>();
        for (List<Enqueued> w; (w = toAdopt.poll()) != null; ) {
          batch.add(w);
        }
        Map<UUID, NoticeRow> adopted = new java.util.HashMap<>();
        batch.forEach(w -> adopted.putAll(ownHeld(w)));
        try {
          adopted.putAll(adopt(batch));
        } finally {
          settle(batch, adopted);
        }
      } finally {
        adopting.unlock();
      }
      if (--rounds == 0) { // this caller has waited long enough for others
        Thread.ofVirtual().name("herald-adopt").start(() -> adoptQueued(Integer.MAX_VALUE));
        return;
      }
    }
  }

  private void settle(List<List<Enqueued>> batch, Map<UUID, NoticeRow> adopted) {
    boolean wake = false;
    for (List<Enqueued> written : batch) {
      for (Enqueued e : written) {
        try {
          wake |= committedOne(e, adopted.get(e.notice().id()));
        } catch (Throwable t) { // keep going: every reserved permit must come back
          listeners.onEngineError("fire committed notice", t);
        }
      }
    }
    if (wake && isRunning()) {
      poll.request();
    }
  }

  /** Holds one committed notice; true if the poller should look for it instead. */
  private boolean committedOne(Enqueued e, NoticeRow adopted) {
    if (e.reserved() && adopted == null) {
      ownership.unreserve(1); // rolled back to a savepoint, or its provisional hold ran out: the poll finds it
      return e.created() && isRunning();
    }
    if (e.created()) {
      listeners.onEnqueued(e.notice());
    }
    if (!e.reserved()) {
      return e.created() && !e.notice().nextAttemptAt().isAfter(clock.instant().plus(settings.lookAhead()));
    }
    Optional<NoticeDefinition> def = definitions.find(e.notice().definition());
    if (!isRunning() || def.isEmpty()) {
      ownership.unreserve(1);
      ownership.release(List.of(adopted), "release a committed notice");
    } else if (!ownership.hold(adopted, def.get())) { // gives the permit back
      ownership.release(List.of(adopted), "release a committed notice");
    }
    return false;
  }

  /**
   * Moves the reserved notices that really committed (a rollback to a savepoint inside the caller's
   * transaction removes a row that the transaction still lists) from their provisional owner to
   * this node, in one round trip. If the database cannot answer, none is fired from memory: the
   * poll delivers them once their provisional hold runs out.
   */
  private Map<UUID, NoticeRow> adopt(List<List<Enqueued>> batch) {
    // Pre-claimed under their incarnation's provisional owner: adopted by that token, if it is still current.
    Map<String, List<UUID>> byOwner = new java.util.TreeMap<>();
    for (List<Enqueued> written : batch) {
      for (Enqueued e : written) {
        if (provisional(e)) {
          byOwner.computeIfAbsent(e.row().owner(), o -> new ArrayList<>()).add(e.notice().id());
        }
      }
    }
    String current = ownership.claimToken();
    if (byOwner.isEmpty() || !isRunning() || current == null) {
      return Map.of();
    }
    List<UUID> ids = byOwner.getOrDefault(current + PROVISIONAL, List.of());
    if (ids.isEmpty()) {
      return Map.of(); // pre-claimed by an incarnation retired since: the poll finds them once their hold runs out
    }
    Set<UUID> moved;
    try {
      moved = store.adopt(current + PROVISIONAL, current, ids);
    } catch (RuntimeException ex) {
      listeners.onEngineError("adopt committed notices", ex);
      if (!(ex instanceof StoreException se) || se.outcomeUnknown()) {
        ownership.doubtClaims(); // adopted, perhaps: reconciliation gives such rows back
      }
      return Map.of();
    }
    if (Trace.on()) {
      Trace.log("adopted under {}: {}", current, moved);
    }
    Map<UUID, NoticeRow> out = new java.util.HashMap<>();
    for (List<Enqueued> written : batch) {
      for (Enqueued e : written) {
        if (provisional(e) && moved.contains(e.notice().id())) {
          NoticeRow r = e.row();
          out.put(r.id(), r.next(r.notice(), current, r.leaseUntil()));
        }
      }
    }
    return out;
  }

  /**
   * The caller's transaction rolled back, or its commit failed: nothing of it is fired from memory.
   * Rows written under the token itself may have committed all the same (a commit whose answer was
   * lost): a doubt, so that reconciliation releases them.
   */
  void rolledBack(List<Enqueued> written) {
    boolean own = false;
    for (Enqueued e : written) {
      if (e.reserved()) {
        ownership.unreserve(1);
        own |= !provisional(e);
      }
    }
    if (own) {
      ownership.doubtClaims();
      poll.request();
    }
  }
}
