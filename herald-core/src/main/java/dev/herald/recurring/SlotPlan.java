package dev.herald.recurring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What one poll does with a schedule that is due: the slots it fires, how many it passes over, and
 * the schedule's next slot after them. Slots more than {@code missedAfter} old were missed (no node
 * ran, or the schedule could not fire); the schedule's {@link RecurringSchedule.MissedSlots} policy
 * decides about them, while a slot just due always fires.
 *
 * @param fire the slots to make notices for, in order
 * @param skipped how many due slots are passed over
 * @param next the next slot not fired (null: none)
 */
record SlotPlan(List<Instant> fire, long skipped, Instant next) {
  /** Most notices one poll makes for one schedule under FIRE_ALL; the rest wait for the next poll. */
  static final int MAX_PER_POLL = 1_000;
  /** How far back the latest missed slot of a cron schedule is looked for when only it matters. */
  private static final Duration LOOK_BACK = Duration.ofDays(400);

  static SlotPlan of(RecurringSchedule s, Instant firstDue, Instant now, Duration missedAfter) {
    Instant staleBefore = now.minus(missedAfter);
    if (s.missed() == RecurringSchedule.MissedSlots.FIRE_ALL) {
      List<Instant> fire = new ArrayList<>();
      Instant t = firstDue;
      while (t != null && !t.isAfter(now) && fire.size() < MAX_PER_POLL) {
        fire.add(t);
        t = s.slotAfter(t);
      }
      return new SlotPlan(fire, 0, t);
    }
    // FIRE_ONCE and SKIP only need the latest due slot and how many came before it
    Instant latest = null;
    long count = 0;
    Instant t = firstDue;
    if (s.cron() != null && t.isBefore(now.minus(LOOK_BACK))) {
      // a downtime of more than a year: step from a year back; the slots before are passed over uncounted
      t = s.slotAfter(now.minus(LOOK_BACK));
    } else if (s.every() != null) {
      long everyMs = s.every().toMillis();
      long behind = (now.toEpochMilli() - t.toEpochMilli()) / everyMs; // whole periods: slots after firstDue up to now
      latest = t.plusMillis(behind * everyMs);
      count = behind + 1;
      t = null;
    }
    while (t != null && !t.isAfter(now)) {
      latest = t;
      count++;
      t = s.slotAfter(t);
    }
    if (latest == null) {
      return new SlotPlan(List.of(), 0, t);
    }
    Instant next = s.slotAfter(latest);
    boolean fresh = !latest.isBefore(staleBefore);
    if (s.missed() == RecurringSchedule.MissedSlots.SKIP && !fresh) {
      return new SlotPlan(List.of(), count, next);
    }
    return new SlotPlan(List.of(latest), count - 1, next);
  }
}
