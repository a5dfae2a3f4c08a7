package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.NoticeRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The timer's order and its take-back: notices due at the same millisecond are all kept, in due order. */
class DueTimerTest {
  private static final NoticeDefinition DEF = NoticeDefinition.builder("d").handler("h").build();

  @Test
  void noticesDueAtTheSameTimeAreAllKeptAndComeOutInDueOrder() {
    DueTimer timer = new DueTimer();
    List<HeldNotice> held = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      HeldNotice h = held(1_000 + (i * 7919) % 50); // 50 distinct due times, 6 notices each, added out of order
      held.add(h);
      timer.add(h);
    }
    List<HeldNotice> due = timer.pollDue(2_000, 1_000);
    assertThat(due).hasSize(300).containsExactlyInAnyOrderElementsOf(held);
    assertThat(due).extracting(h -> h.dueMillis).isSorted();
  }

  @Test
  void aTakenBackNoticeLeavesAndTheOthersStay() {
    DueTimer timer = new DueTimer();
    HeldNotice a = held(100);
    HeldNotice b = held(100);
    HeldNotice c = held(50);
    timer.add(a);
    timer.add(b);
    timer.add(c);
    assertThat(timer.remove(b.id(), a)).as("not the notice held under that id").isNull();
    assertThat(timer.remove(b.id(), b)).isSameAs(b);
    assertThat(timer.remove(b.id(), b)).as("gone").isNull();
    HeldNotice later = new HeldNotice(a.row, DEF, 300); // the same notice held again, due later
    timer.add(later);
    assertThat(timer.pollDue(200, 10)).containsExactly(c);
    assertThat(timer.pollDue(300, 10)).containsExactly(later);
    assertThat(timer.drain()).isEmpty();
  }

  private static HeldNotice held(long dueMillis) {
    Instant t = Instant.ofEpochMilli(dueMillis);
    Notice n = new Notice(UUID.randomUUID(), "d", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t,
        null, null);
    return new HeldNotice(new NoticeRow(n, "node", t.plusSeconds(30), 2, 0), DEF, dueMillis);
  }
}
