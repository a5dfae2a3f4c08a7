package dev.herald.recurring;

import dev.herald.Definitions;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.events.Events;
import dev.herald.events.Tenancy;
import dev.herald.internal.JsonText;
import dev.herald.store.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recurring notices ({@code herald.recurring()}): schedules that make one notice per slot of a cron
 * expression or a fixed rate. Every node polls for due schedules ({@link #fireDue()}, run by a started
 * Herald at its poll interval and by {@code runDue()}); a slot is fired by whichever node moves the
 * schedule's next slot on first, in the same transaction as its notice, so each slot makes exactly one
 * notice across all nodes. A slot found more than {@link #MISSED_AFTER} late was missed (downtime):
 * the schedule's {@link RecurringSchedule.MissedSlots} policy decides whether it fires.
 */
public final class Recurring {
  private static final Logger log = LoggerFactory.getLogger(Recurring.class);
  /** How late a slot may be found and still count as just due rather than missed. */
  public static final Duration MISSED_AFTER = Duration.ofMinutes(1);
  /** Seconds a schedule that could not fire (an unknown definition, say) waits before this node tries again. */
  static final long BACK_OFF_SECONDS = 30;
  private static final Duration BACK_OFF = Duration.ofSeconds(BACK_OFF_SECONDS);
  private static final int DUE_BATCH = 100;

  /**
   * Called in the transaction that fires a schedule's slots, with the notices it wrote: herald-server
   * records there which tenant the notices belong to.
   */
  @FunctionalInterface
  public interface SlotListener {
    void fired(Connection connection, RecurringSchedule schedule, List<Notice> notices) throws SQLException;
  }

  private final RecurringTables tables;
  private final Definitions definitions;
  private final Clock clock;
  private final Events.OwnTransactions transactions;
  private final Map<String, Instant> backOff = new ConcurrentHashMap<>();
  private volatile SlotListener listener = (c, s, n) -> {};

  /** Built by {@link dev.herald.Herald}; reach it with {@code herald.recurring()}. */
  public Recurring(DataSource dataSource, Dialect dialect, Definitions definitions, Clock clock,
      Events.OwnTransactions transactions) {
    this.tables = new RecurringTables(dataSource, dialect);
    this.definitions = definitions;
    this.clock = clock;
    this.transactions = transactions;
  }

  /** Hears every firing in its transaction (one listener; a later call replaces it). */
  public void onFired(SlotListener l) {
    this.listener = l == null ? (c, s, n) -> {} : l;
  }

  /**
   * Creates or replaces a schedule. A new schedule, or a changed cron expression, zone or rate, starts
   * at its first slot after now; other changes keep the next slot. Saved paused, it fires nothing.
   *
   * @throws InvalidInputException naming {@code definition} (unknown, or without a target) or {@code payload} (not JSON)
   */
  public RecurringSchedule save(RecurringSchedule s) {
    var definition = definitions.find(s.definition());
    if (definition.isEmpty()) {
      throw new InvalidInputException("definition", "no definition '" + s.definition() + "'");
    }
    if (definition.get().perNoticeTarget()) {
      throw new InvalidInputException("definition", "definition '" + s.definition() + "' has no target of its own"
          + " (each of its notices gives one), and a schedule's notices give none");
    }
    JsonText.requireValid(s.payloadFor(Instant.EPOCH), "payload");
    Instant now = clock.instant();
    return tables.run("save recurring schedule " + s.name(), c -> inTransaction(c, () -> {
      Optional<RecurringSchedule> old = tables.find(c, s.tenant(), s.name());
      Instant anchor = s.every() != null && s.anchor() == null
          ? old.filter(o -> o.every() != null && o.every().equals(s.every())).map(RecurringSchedule::anchor).orElse(now)
          : s.anchor();
      RecurringSchedule fresh = new RecurringSchedule(s.tenant(), s.name(), s.description(), s.definition(),
          s.payload(), s.cron(), s.zone(), s.every(), anchor, s.missed(), s.paused(), null, null, 0, null, now, now);
      boolean keepNext = old.isPresent() && old.get().sameCadence(fresh) && old.get().paused() == fresh.paused();
      RecurringSchedule stored = new RecurringSchedule(fresh.tenant(), fresh.name(), fresh.description(),
          fresh.definition(), fresh.payload(), fresh.cron(), fresh.zone(), fresh.every(), fresh.anchor(),
          fresh.missed(), fresh.paused(), keepNext ? old.get().nextSlot() : fresh.slotAfter(now),
          old.map(RecurringSchedule::lastSlot).orElse(null), old.map(RecurringSchedule::skippedSlots).orElse(0L),
          null, old.map(RecurringSchedule::createdAt).orElse(now), now);
      if (old.isPresent()) {
        tables.update(c, stored);
      } else {
        tables.insert(c, stored);
      }
      backOff.remove(key(stored));
      return stored;
    }));
  }

  public Optional<RecurringSchedule> find(String tenant, String name) {
    String t = Tenancy.check(tenant, "tenant");
    return tables.run("read recurring schedule " + name, c -> tables.find(c, t, name));
  }

  /** A tenant's schedules by name. */
  public List<RecurringSchedule> list(String tenant) {
    return tables.list(Tenancy.check(tenant, "tenant"));
  }

  /** Deletes a schedule; the notices it made stay. False if there was none. */
  public boolean delete(String tenant, String name) {
    return tables.delete(Tenancy.check(tenant, "tenant"), name);
  }

  /** Stops a schedule firing; its slots pass unfired until it is resumed. */
  public RecurringSchedule pause(String tenant, String name) {
    return save(require(tenant, name).toBuilder().paused(true).build());
  }

  /** Resumes a paused schedule at its first slot after now (the slots passed while paused do not fire). */
  public RecurringSchedule resume(String tenant, String name) {
    return save(require(tenant, name).toBuilder().paused(false).build());
  }

  /** The latest fired slots of a schedule with their notices, newest first (at most 100 are kept). */
  public List<FiredSlot> slots(String tenant, String name, int limit) {
    return tables.slots(Tenancy.check(tenant, "tenant"), name, limit);
  }

  private RecurringSchedule require(String tenant, String name) {
    return find(tenant, name).orElseThrow(() -> new InvalidInputException("name", "no recurring schedule '" + name
        + "'"));
  }

  /**
   * Fires the slots due now of every due schedule, each schedule in a transaction of its own; returns
   * how many notices were made. A schedule that cannot fire keeps its slot, notes why ({@code
   * lastError}) and is tried again after {@value #BACK_OFF_SECONDS} seconds.
   */
  public int fireDue() {
    Instant now = clock.instant();
    int made = 0;
    for (RecurringSchedule s : tables.due(now, DUE_BATCH)) {
      Instant wait = backOff.get(key(s));
      if (wait != null && now.isBefore(wait)) {
        continue;
      }
      try {
        made += fire(s, now);
        backOff.remove(key(s));
      } catch (RuntimeException e) {
        backOff.put(key(s), now.plus(BACK_OFF));
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        log.warn("Recurring schedule {} (tenant {}) cannot fire its slot {}: {}", s.name(), s.tenant(), s.nextSlot(),
            why);
        try {
          tables.recordError(s.tenant(), s.name(), why);
        } catch (RuntimeException second) {
          e.addSuppressed(second);
          log.warn("Recurring schedule {}: cannot record the error either: {}", s.name(), second.getMessage());
        }
      }
    }
    return made;
  }

  private int fire(RecurringSchedule s, Instant now) {
    SlotPlan plan = SlotPlan.of(s, s.nextSlot(), now, MISSED_AFTER);
    return transactions.inTransaction(tx -> {
      Instant last = plan.fire().isEmpty() ? null : plan.fire().getLast();
      if (!tables.advance(tx.connection(), s, s.nextSlot(), plan.next(), last, plan.skipped(), now)) {
        return 0; // another node fired it, or it was paused or changed since it was read
      }
      if (plan.fire().isEmpty()) {
        return 0;
      }
      List<NoticeRequest> requests = new ArrayList<>();
      for (Instant slot : plan.fire()) {
        requests.add(NoticeRequest.of(s.definition(), s.payloadFor(slot)).idempotencyKey(s.slotKey(slot))
            .description("recurring " + s.name() + " at " + slot));
      }
      List<Notice> notices = tx.enqueueAll(requests);
      List<FiredSlot> slots = new ArrayList<>();
      for (int i = 0; i < notices.size(); i++) {
        slots.add(new FiredSlot(plan.fire().get(i), notices.get(i).id(), now));
      }
      tables.recordSlots(tx.connection(), s, slots);
      listener.fired(tx.connection(), s, notices);
      return notices.size();
    });
  }

  private static String key(RecurringSchedule s) {
    return s.tenant() + "/" + s.name();
  }

  private interface Work<T> {
    T run() throws SQLException;
  }

  private static <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(auto);
    }
  }
}
