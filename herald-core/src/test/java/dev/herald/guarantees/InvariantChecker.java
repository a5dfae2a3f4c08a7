package dev.herald.guarantees;

import static dev.herald.guarantees.Journal.ms;

import dev.herald.Attempt;
import dev.herald.DeliveryResult.Outcome;
import dev.herald.Notice;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import dev.herald.guarantees.Journal.Call;
import dev.herald.guarantees.Journal.Delivery;
import dev.herald.guarantees.Journal.Origin;
import dev.herald.guarantees.Scenario.Op;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Checks a run's journal and final states against Herald's guarantees. Calls are linearizable at
 * some instant between their start and return, so "B after A" is asserted only when B started
 * after A returned; an operations call that failed otherwise than by a refusal may have applied.
 */
final class InvariantChecker {
  enum Kind {
    /** 1: two deliveries of one notice at overlapping times, by two nodes. */
    OVERLAPPING_DELIVERIES,
    /** 2: a delivery started after a cancel returned, with no resend that could come after it. */
    DELIVERED_AFTER_CANCEL,
    /** 2 (likewise for confirm): a delivery started after a confirm returned SUCCEEDED. */
    DELIVERED_AFTER_CONFIRM,
    /** 3: a delivery started with a payload that an acknowledged edit had replaced. */
    DELIVERED_STALE_PAYLOAD,
    /** 3: a delivery carried the payload of an edit that was refused. */
    DELIVERED_REFUSED_EDIT,
    /** 4: an acknowledged enqueue whose notice cannot be found. */
    LOST,
    /** 4: a finished notice in a state its history does not imply. */
    WRONG_FINAL_STATE,
    /** 4: waiting (PENDING, FAILED, AWAITING_CONFIRM) with its due time long past after quiescence. */
    STUCK,
    /**
     * 4 (confirmation): the receiver's confirm of an attempt it was given, during or after it, was
     * refused because the notice was IN_FLIGHT (its node alive).
     */
    CONFIRM_REFUSED_IN_FLIGHT,
    /** 5: attempt count differs from the attempt rows, or their numbers are not 1..n. */
    ATTEMPT_COUNT_MISMATCH,
    /** 5: an attempt row that no receiver call matches (number, node, outcome). */
    ATTEMPT_WITHOUT_DELIVERY,
    /** 6: still IN_FLIGHT after quiescence. */
    IN_FLIGHT_AFTER_QUIESCENCE,
    /** 7: two deliveries of notices with one ordering key at overlapping times, neither cut by a kill. */
    ORDERED_KEY_OVERLAP,
    /**
     * 8, no orphan: a notice finished later than {@link #SETTLE_MS} after the scenario (and its faults)
     * ended: held for a while by no live node's memory, nor claimable, until a sweep or a timeout freed it.
     */
    ORPHANED
  }

  record Violation(Kind kind, int n, UUID id, String detail) {
    @Override
    public String toString() {
      return kind + " notice " + n + " (" + id + "): " + detail;
    }
  }

  /** Slack for the due time of a waiting notice: a poll interval and a claim. */
  private static final long DUE_SLACK_MS = 2_000;
  /**
   * Every notice settles within this long after the scenario ends: its latest work (a notice due at
   * the end, a confirmation cycle of four attempts a second apart, an operator's resend after it, a
   * node killed meanwhile) takes well under it, and the periodic sweep that would free an orphan
   * comes later (30 s after a node starts).
   */
  static final long SETTLE_MS = 14_000;

  private final Journal journal;
  private final Map<Integer, NoticeDetail> finals;
  private final Instant checkedAt;
  private final Instant settleBy;
  /** The wall-clock instant the journal's times count from. */
  private final Instant startedWall;
  private final Map<Integer, List<Delivery>> deliveries;
  private final Map<Integer, List<Call>> calls;
  private final List<Violation> violations = new ArrayList<>();
  /** Live notices due in the future at the check: not settled, but not wrong. */
  final List<Integer> unsettled = new ArrayList<>();

  InvariantChecker(Journal journal, Map<Integer, NoticeDetail> finals, Instant checkedAt, Instant started,
      Instant scenarioEnd) {
    this.startedWall = started;
    this.journal = journal;
    this.finals = finals;
    this.checkedAt = checkedAt;
    this.settleBy = scenarioEnd.plusMillis(SETTLE_MS);
    this.deliveries = journal.deliveries.stream().sorted(Comparator.comparingLong(Delivery::start))
        .collect(Collectors.groupingBy(Delivery::n));
    this.calls = journal.calls.stream().collect(Collectors.groupingBy(Call::n));
  }

  List<Violation> check() {
    Set<Integer> all = new TreeSet<>(journal.ids.keySet());
    all.addAll(deliveries.keySet());
    for (int n : all) {
      List<Delivery> ds = deliveries.getOrDefault(n, List.of());
      List<Call> cs = calls.getOrDefault(n, List.of());
      UUID id = journal.ids.containsKey(n) ? journal.ids.get(n) : ds.getFirst().id();
      overlaps(n, id, ds);
      afterFinishingCalls(n, id, ds, cs);
      payloadVersions(n, id, ds, cs);
      receiverConfirms(n, id, cs, ds);
      NoticeDetail detail = finals.get(n);
      if (detail == null) {
        if (journal.ids.containsKey(n)) {
          add(Kind.LOST, n, id, "enqueue acknowledged at " + ms(journal.enqueuedAt.get(n)) + ", not found");
        }
        continue;
      }
      finalState(n, id, detail.notice(), ds, cs);
      attempts(n, id, detail, ds);
      orphaned(n, id, detail.notice(), cs);
    }
    orderedKeys();
    return violations;
  }

  // 7 ----------------------------------------------------------------

  /** Notices sharing an ordering key are delivered one at a time, whichever node runs them. */
  private void orderedKeys() {
    Map<String, List<Delivery>> byKey = deliveries.values().stream().flatMap(List::stream)
        .filter(d -> finals.containsKey(d.n())
            && Scenario.definition(finals.get(d.n()).notice().definition()).definition().ordering().ordered())
        .filter(d -> !d.cut() && !spansPause(d))
        .sorted(Comparator.comparingLong(Delivery::start))
        .collect(Collectors.groupingBy(d -> Scenario.orderingKey(d.n())));
    byKey.forEach((key, ds) -> {
      for (int i = 0; i + 1 < ds.size(); i++) {
        Delivery a = ds.get(i);
        Delivery b = ds.get(i + 1);
        if (b.start() < a.end()) {
          add(Kind.ORDERED_KEY_OVERLAP, b.n(), b.id(), "key " + key + ": " + describe(b) + " of notice " + b.n()
              + " started while " + describe(a) + " of notice " + a.n() + " ran");
        }
      }
    });
  }

  /** Everything the journal and the store say about notice {@code n}, in time order: for debugging a violation. */
  String history(int n) {
    StringBuilder out = new StringBuilder("history of notice " + n);
    NoticeDetail detail = finals.get(n);
    if (detail != null) {
      Notice x = detail.notice();
      out.append(" (").append(x.id()).append(", ").append(x.definition()).append("): final ").append(x.status())
          .append(", attempts ").append(x.attempts()).append(", rows ")
          .append(detail.attempts().stream().map(a -> a.number() + " " + a.outcome() + " on " + a.node()).toList());
    }
    record Line(long at, String text) {}
    List<Line> lines = new ArrayList<>();
    if (journal.enqueuedAt.containsKey(n)) {
      lines.add(new Line(journal.enqueuedAt.get(n), "enqueue acknowledged"));
    }
    deliveries.getOrDefault(n, List.of()).forEach(d -> lines.add(new Line(d.start(), describe(d) + " " + d.result())));
    calls.getOrDefault(n, List.of()).forEach(c -> lines.add(new Line(c.start(), describe(c))));
    journal.events.stream().filter(e -> !e.node().equals("-"))
        .forEach(e -> lines.add(new Line(e.at(), e.what() + " " + e.node())));
    lines.stream().sorted(Comparator.comparingLong(Line::at))
        .forEach(l -> out.append("\n  ").append(ms(l.at())).append(" ").append(l.text()));
    return out.toString();
  }

  private void add(Kind kind, int n, UUID id, String detail) {
    violations.add(new Violation(kind, n, id, detail));
  }

  private static String describe(Delivery d) {
    return "attempt " + d.attempt() + " v" + d.version() + " on " + d.node() + " [" + ms(d.start()) + ", "
        + ms(d.end()) + "]" + (d.cut() ? " cut by kill" : "");
  }

  private static String describe(Call c) {
    return c.op() + (c.origin() == Origin.OPERATOR ? "" : " by " + c.origin()) + " via " + c.node() + " ["
        + ms(c.start()) + ", " + ms(c.end()) + "] -> " + (c.acked() ? c.status() : c.error());
  }

  private static String nodeOf(String label) {
    return label.substring(0, label.indexOf('#'));
  }

  // 1 ----------------------------------------------------------------

  /**
   * Whether the node was paused while {@code d} ran (its database calls stalled longer than the node
   * timeout): then another node may rightly take the notice over while the attempt goes on. This is
   * the one overlap the guarantee admits (docs/guarantees.md): nothing can stop a call already made.
   */
  private boolean spansPause(Delivery d) {
    return journal.events.stream().filter(e -> e.node().equals(d.node())).anyMatch(e -> {
      if (e.what().startsWith("pause")) {
        long millis = Long.parseLong(e.what().substring(6, e.what().length() - 2));
        return e.at() < d.end() && d.start() < e.at() + millis * 1_000_000;
      }
      // The node said its token lapsed while this attempt ran: its heartbeat came later than the node
      // timeout (a starved machine), outside the budget it relies on; the engine reported it.
      return e.what().equals("lapse") && d.start() < e.at() && e.at() < d.end() + 1_000_000_000L;
    });
  }

  /** Overlapping deliveries admitted because a node was paused or said its token lapsed during one (reported). */
  int admittedOverlaps;

  private void overlaps(int n, UUID id, List<Delivery> ds) {
    for (int i = 0; i < ds.size(); i++) {
      for (int j = i + 1; j < ds.size() && ds.get(j).start() < ds.get(i).end(); j++) {
        if (ds.get(i).node().equals(ds.get(j).node())) {
          continue;
        }
        if (spansPause(ds.get(i)) || spansPause(ds.get(j))) {
          admittedOverlaps++;
        } else {
          add(Kind.OVERLAPPING_DELIVERIES, n, id, describe(ds.get(i)) + " and " + describe(ds.get(j)));
        }
      }
    }
  }

  // 2 ----------------------------------------------------------------

  /** A resend that may have applied and could be ordered after {@code c}, before {@code at}. */
  private static boolean resentAfter(Call c, long at, List<Call> cs) {
    return cs.stream().anyMatch(r -> r.op() == Op.RESEND && r.mayHaveApplied() && r.end() > c.start() && r.start() < at);
  }

  private void afterFinishingCalls(int n, UUID id, List<Delivery> ds, List<Call> cs) {
    for (Delivery d : ds) {
      for (Call c : cs) {
        boolean finishing = c.acked() && (c.op() == Op.CANCEL || c.op() == Op.CONFIRM) && c.status().isFinished();
        if (finishing && c.end() < d.start() && !resentAfter(c, d.start(), cs)) {
          add(c.op() == Op.CANCEL ? Kind.DELIVERED_AFTER_CANCEL : Kind.DELIVERED_AFTER_CONFIRM, n, id,
              describe(d) + " started " + ms(d.start() - c.end()) + " after " + describe(c));
          break;
        }
      }
    }
  }

  // 3 ----------------------------------------------------------------

  private void payloadVersions(int n, UUID id, List<Delivery> ds, List<Call> cs) {
    List<Call> edits = cs.stream().filter(c -> c.op() == Op.EDIT).toList();
    for (Delivery d : ds) {
      Call writer = edits.stream().filter(e -> e.version() == d.version()).findFirst().orElse(null);
      if (writer != null && writer.refused()) {
        add(Kind.DELIVERED_REFUSED_EDIT, n, id, describe(d) + " carries the payload of " + describe(writer));
        continue;
      }
      // Superseded: an edit acknowledged before the delivery started, which began after the one
      // that wrote the delivered payload returned (the enqueue, for version 0).
      edits.stream()
          .filter(e -> e.acked() && e.end() < d.start() && (writer == null || writer.end() < e.start()))
          .findFirst()
          .ifPresent(e -> add(Kind.DELIVERED_STALE_PAYLOAD, n, id,
              describe(d) + " started " + ms(d.start() - e.end()) + " after " + describe(e) + " (v" + e.version() + ")"));
    }
  }

  // 4 ----------------------------------------------------------------

  /**
   * A receiver's confirm refused because the notice was IN_FLIGHT, unless the node that delivered
   * the attempt died before the refusal (then its outcome may be lost, and the notice rightly waits
   * for another node).
   */
  private void receiverConfirms(int n, UUID id, List<Call> cs, List<Delivery> ds) {
    cs.stream()
        .filter(c -> c.origin() != Origin.OPERATOR && c.refused() && c.from() == NoticeStatus.IN_FLIGHT)
        .filter(c -> ds.stream().filter(d -> d.attempt() == c.attempt() && d.start() < c.start())
            .noneMatch(d -> journal.events.stream().anyMatch(e -> e.what().equals("kill") && e.node().equals(d.node())
                && e.at() < c.end())))
        .collect(Collectors.groupingBy(Call::attempt))
        .forEach((attempt, refused) -> add(Kind.CONFIRM_REFUSED_IN_FLIGHT, n, id, "confirm of attempt " + attempt
            + " refused " + refused.size() + " time(s), first " + describe(refused.getFirst())));
  }

  private void finalState(int n, UUID id, Notice notice, List<Delivery> ds, List<Call> cs) {
    NoticeStatus status = notice.status();
    if (status == NoticeStatus.IN_FLIGHT) {
      add(Kind.IN_FLIGHT_AFTER_QUIESCENCE, n, id, "due " + notice.nextAttemptAt() + ", attempts " + notice.attempts()
          + ", checked at " + checkedAt);
      return;
    }
    if (!status.isFinished()) {
      if (notice.nextAttemptAt().plusMillis(DUE_SLACK_MS).isBefore(checkedAt)) {
        add(Kind.STUCK, n, id, status + " due " + notice.nextAttemptAt() + ", checked at " + checkedAt);
      } else {
        unsettled.add(n);
      }
      return;
    }
    // An acknowledged cancel or confirm that no resend can have undone decides the state.
    for (Call c : cs) {
      boolean finishing = c.acked() && (c.op() == Op.CANCEL || c.op() == Op.CONFIRM) && c.status().isFinished();
      if (finishing && !resentAfter(c, Long.MAX_VALUE, cs)) {
        if (status != c.status()) {
          add(Kind.WRONG_FINAL_STATE, n, id, status + ", but " + describe(c) + " and no resend after it");
        }
        return;
      }
    }
    // Otherwise the handler decides, and a cancel that may have applied.
    Scenario.Kind kind = Scenario.definition(notice.definition()).kind();
    Set<NoticeStatus> allowed = EnumSet.of(NoticeStatus.SUCCEEDED);
    if (kind == Scenario.Kind.FAILING) {
      allowed.add(NoticeStatus.DEAD);
    }
    if (cs.stream().anyMatch(c -> c.op() == Op.CANCEL && c.mayHaveApplied())) {
      allowed.add(NoticeStatus.CANCELLED);
    }
    if (!allowed.contains(status)) {
      long confirmed = cs.stream().filter(c -> c.op() == Op.CONFIRM && c.origin() != Origin.OPERATOR && c.acked())
          .map(Call::attempt).distinct().count();
      add(Kind.WRONG_FINAL_STATE, n, id, status + " (" + notice.definition() + "), expected one of " + allowed
          + "; last error " + notice.lastError() + "; " + ds.size() + " deliveries, " + confirmed
          + " of them confirmed by the receiver (acknowledged)");
    } else if (status == NoticeStatus.SUCCEEDED && kind == Scenario.Kind.CONFIRM
        && cs.stream().noneMatch(c -> c.op() == Op.CONFIRM && c.mayHaveApplied())) {
      add(Kind.WRONG_FINAL_STATE, n, id, "SUCCEEDED without any confirm that may have applied");
    }
  }

  // 8 ----------------------------------------------------------------

  /**
   * A notice finishes within {@link #SETTLE_MS} of the last thing that could move it: the end of
   * the scenario (and of its faults), its enqueue's acknowledgement, or the end of the last call on it
   * (a loaded machine can delay those past the scenario's end).
   */
  private void orphaned(int n, UUID id, Notice notice, List<Call> cs) {
    long last = Math.max(journal.enqueuedAt.getOrDefault(n, 0L), cs.stream().mapToLong(Call::end).max().orElse(0));
    Instant by = settleBy.isAfter(startedWall.plusNanos(last).plusMillis(SETTLE_MS))
        ? settleBy : startedWall.plusNanos(last).plusMillis(SETTLE_MS);
    if (notice.finishedAt() != null && notice.finishedAt().isAfter(by)) {
      add(Kind.ORPHANED, n, id, notice.status() + " at " + notice.finishedAt() + ", more than " + SETTLE_MS
          + " ms after the scenario ended and the last call on it");
    }
  }

  // 5 ----------------------------------------------------------------

  private void attempts(int n, UUID id, NoticeDetail detail, List<Delivery> ds) {
    List<Attempt> rows = detail.attempts();
    boolean numbered = true;
    for (int i = 0; i < rows.size(); i++) {
      numbered &= rows.get(i).number() == i + 1;
    }
    if (detail.notice().attempts() != rows.size() || !numbered) {
      add(Kind.ATTEMPT_COUNT_MISMATCH, n, id, "attempts " + detail.notice().attempts() + ", rows numbered "
          + rows.stream().map(Attempt::number).toList());
    }
    for (Attempt a : rows) {
      boolean matched = ds.stream().anyMatch(d -> !d.cut() && d.attempt() == a.number()
          && nodeOf(d.node()).equals(a.node()) && sameOutcome(d.result(), a));
      if (!matched) {
        add(Kind.ATTEMPT_WITHOUT_DELIVERY, n, id, "attempt row " + a.number() + " " + a.outcome() + " on " + a.node()
            + " at " + a.startedAt() + "; receiver saw " + ds.stream().map(InvariantChecker::describe).toList());
      }
    }
  }

  /** The receiver's answer as recorded; a retry that used up the attempts is recorded as the FAIL it was. */
  private static boolean sameOutcome(String result, Attempt a) {
    Outcome o = outcomeOf(result);
    return o == a.outcome() || o == Outcome.RETRY && a.outcome() == Outcome.FAIL && a.detail() != null
        && a.detail().contains("no retry left, DEAD)");
  }

  private static Outcome outcomeOf(String result) {
    return switch (result) {
      case "DELIVER" -> Outcome.DELIVERED;
      case "FAIL" -> Outcome.FAIL;
      default -> Outcome.RETRY;
    };
  }
}
