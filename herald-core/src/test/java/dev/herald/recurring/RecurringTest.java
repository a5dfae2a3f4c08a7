package dev.herald.recurring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.recurring.RecurringSchedule.MissedSlots;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recurring notices on two nodes sharing one database and one settable clock: every slot makes
 * exactly one notice whichever node finds it due (both poll at the same moments, on two threads),
 * across daylight-saving changes; after downtime each missed-slot policy does what it says; paused
 * schedules fire nothing; a schedule that cannot fire says why and keeps its slot.
 */
class RecurringTest {
  // subclasses run every test on another database
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-10-24T12:00:00Z"));
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  private Herald a;
  private Herald b;

  @AfterEach
  void tearDown() throws Exception {
    threads.shutdownNow();
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private javax.sql.DataSource shared;

  /** An empty database for one test; the two nodes share it. H2 here; PostgreSQL and MariaDB in subclasses. */
  protected javax.sql.DataSource newDatabase(List<AutoCloseable> toClose) {
    JdbcConnectionPool pool = JdbcConnectionPool.create(Herald.Builder.h2Url(dir.resolve("shared")), "sa", "");
    toClose.add(pool::dispose);
    return pool;
  }

  private Herald node(String id) {
    if (shared == null) {
      shared = newDatabase(toClose);
    }
    Herald h = Herald.builder().dataSource(shared).nodeId(id).clock(clock)
        .define(NoticeDefinition.builder("figures").handler("figures").retry("1m").build())
        .handler("figures", ctx -> {
          received.add(ctx.payload());
          return DeliveryResult.delivered();
        })
        .build();
    toClose.add(h);
    return h;
  }

  private void twoNodes() {
    a = node("node-a");
    b = node("node-b");
  }

  /** Both nodes fire what is due at the same moment, on two threads; returns the notices made. */
  private int bothFire() throws Exception {
    List<Callable<Integer>> work = List.of(() -> a.recurring().fireDue(), () -> b.recurring().fireDue());
    int made = 0;
    for (Future<Integer> f : threads.invokeAll(work)) {
      made += f.get();
    }
    return made;
  }

  private void deliverAll() {
    a.runDue();
    b.runDue();
  }

  private static final java.util.regex.Pattern SLOT = java.util.regex.Pattern.compile("\"slot\":\\s*\"([^\"]+)\"");

  private static String slotOf(String payload) {
    java.util.regex.Matcher m = SLOT.matcher(payload);
    assertThat(m.find()).as(payload).isTrue();
    return m.group(1);
  }

  private List<String> slotsReceived() {
    return received.stream().map(RecurringTest::slotOf).toList();
  }

  @Test
  void everySlotMakesOneNoticeOnTwoNodesAcrossBothDaylightSavingChanges() throws Exception {
    twoNodes();
    a.recurring().save(RecurringSchedule.builder("daily-figures").definition("figures")
        .payload("{\"report\": \"{{schedule}}\", \"slot\": \"{{slot}}\"}").cron("30 2 * * *", BERLIN)
        .missed(MissedSlots.SKIP).paused(true).build());
    // minute by minute over the fall-back night (02:30 happens twice) and later the spring-forward one (it never does)
    int made = 0;
    for (String[] range : new String[][] {{"2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z"},
        {"2027-03-26T12:00:00Z", "2027-03-29T12:00:00Z"}}) {
      clock.set(Instant.parse(range[0]));
      a.recurring().resume("default", "daily-figures"); // paused for the months between
      for (Instant t = Instant.parse(range[0]); t.isBefore(Instant.parse(range[1])); t = clock.advance(Duration.ofMinutes(1))) {
        made += bothFire();
      }
      deliverAll();
      b.recurring().pause("default", "daily-figures");
    }
    assertThat(made).isEqualTo(5);
    assertThat(slotsReceived()).containsExactlyInAnyOrder("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z",
        "2027-03-27T01:30:00Z", "2027-03-28T01:30:00Z", "2027-03-29T00:30:00Z");
    assertThat(received).allMatch(p -> p.contains("\"report\": \"daily-figures\""));
    RecurringSchedule s = b.recurring().find("default", "daily-figures").orElseThrow();
    assertThat(s.lastSlot()).isEqualTo(Instant.parse("2027-03-29T00:30:00Z"));
    assertThat(s.skippedSlots()).isZero();
    assertThat(b.recurring().slots("default", "daily-figures", 10)).hasSize(5).first()
        .satisfies(slot -> assertThat(slot.slot()).isEqualTo(Instant.parse("2027-03-29T00:30:00Z")));
  }

  @Test
  void afterDowntimeEachMissedSlotPolicyDoesWhatItSays() throws Exception {
    twoNodes();
    Instant t0 = clock.instant();
    for (MissedSlots policy : MissedSlots.values()) {
      a.recurring().save(RecurringSchedule.builder(policy.name().toLowerCase()).definition("figures")
          .payload("{\"policy\": \"" + policy + "\", \"slot\": \"{{slot}}\"}").every(Duration.ofHours(1), t0)
          .missed(policy).build());
    }
    clock.advance(Duration.ofHours(5).plusMinutes(30)); // both nodes were down: slots t0+1h .. t0+5h passed
    assertThat(bothFire()).isEqualTo(5 + 1);
    deliverAll();
    assertThat(received).filteredOn(p -> p.contains("FIRE_ALL")).extracting(RecurringTest::slotOf)
        .containsExactlyInAnyOrder(t0.plusSeconds(3600).toString(), t0.plusSeconds(7200).toString(),
            t0.plusSeconds(10800).toString(), t0.plusSeconds(14400).toString(), t0.plusSeconds(18000).toString());
    assertThat(received).filteredOn(p -> p.contains("FIRE_ONCE")).extracting(RecurringTest::slotOf)
        .containsExactly(t0.plusSeconds(18000).toString());
    assertThat(received).noneMatch(p -> p.contains("SKIP"));
    assertThat(a.recurring().find("default", "fire_once").orElseThrow().skippedSlots()).isEqualTo(4);
    assertThat(a.recurring().find("default", "skip").orElseThrow().skippedSlots()).isEqualTo(5);
    assertThat(a.recurring().list("default")).allMatch(s -> s.nextSlot().equals(t0.plusSeconds(6 * 3600)));

    // back to normal: the next slot fires under every policy, once
    received.clear();
    clock.advance(Duration.ofMinutes(30).plusSeconds(5));
    assertThat(bothFire()).isEqualTo(3);
    assertThat(bothFire()).isZero();
    deliverAll();
    assertThat(received).extracting(RecurringTest::slotOf).containsOnly(t0.plusSeconds(6 * 3600).toString())
        .hasSize(3);
  }

  @Test
  void aPausedScheduleFiresNothingAndResumesAtItsNextSlot() throws Exception {
    twoNodes();
    Instant t0 = clock.instant();
    a.recurring().save(RecurringSchedule.builder("ping").definition("figures").payload("{\"slot\": \"{{slot}}\"}")
        .every(Duration.ofMinutes(10), t0).missed(MissedSlots.FIRE_ALL).build());
    assertThat(a.recurring().pause("default", "ping").paused()).isTrue();
    clock.advance(Duration.ofMinutes(35));
    assertThat(bothFire()).isZero();
    RecurringSchedule resumed = b.recurring().resume("default", "ping");
    assertThat(resumed.nextSlot()).as("the slots passed while paused do not fire").isEqualTo(t0.plusSeconds(40 * 60));
    clock.advance(Duration.ofMinutes(5));
    assertThat(bothFire()).isEqualTo(1);
    // a change that keeps the cadence keeps the next slot; one that changes it starts again from now
    RecurringSchedule edited = a.recurring().save(resumed.toBuilder().payload("{\"slot\": \"{{slot}}\", \"v\": 2}")
        .build());
    assertThat(edited.nextSlot()).isEqualTo(t0.plusSeconds(50 * 60));
    assertThat(a.recurring().save(edited.toBuilder().cron("0 * * * *", BERLIN).build()).nextSlot())
        .isEqualTo(Instant.parse("2026-10-24T13:00:00Z"));
  }

  @Test
  void aScheduleThatCannotFireSaysWhyKeepsItsSlotAndFiresOnceItCan() throws Exception {
    twoNodes();
    assertThatThrownBy(() -> a.recurring().save(RecurringSchedule.builder("x").definition("nope")
        .every(Duration.ofMinutes(1), null).build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("definition"));
    assertThatThrownBy(() -> a.recurring().save(RecurringSchedule.builder("x").definition("figures")
        .payload("{\"slot\": {{slot}}}").every(Duration.ofMinutes(1), null).build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("payload"));
    assertThatThrownBy(() -> RecurringSchedule.builder("x").definition("figures").every(Duration.ofMillis(10), null)
        .build()).isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("every"));
    assertThat(a.recurring().list("default")).isEmpty();

    a.definitions().save(NoticeDefinition.builder("temporary").handler("figures").build());
    a.recurring().save(RecurringSchedule.builder("x").definition("temporary").payload("{\"slot\": \"{{slot}}\"}")
        .every(Duration.ofMinutes(1), clock.instant()).build());
    a.definitions().delete("temporary");
    clock.advance(Duration.ofSeconds(61));
    // one node here: another node's definitions learn of the deletion at their next refresh
    assertThat(a.recurring().fireDue()).isZero();
    RecurringSchedule stuck = a.recurring().find("default", "x").orElseThrow();
    assertThat(stuck.lastError()).contains("temporary");
    assertThat(stuck.nextSlot()).as("the slot waits").isEqualTo(stuck.anchor().plusSeconds(60));

    a.definitions().save(NoticeDefinition.builder("temporary").handler("figures").build());
    assertThat(a.recurring().fireDue()).as("backing off").isZero();
    clock.advance(Duration.ofSeconds(Recurring.BACK_OFF_SECONDS));
    assertThat(a.recurring().fireDue()).isEqualTo(1);
    assertThat(a.recurring().find("default", "x").orElseThrow().lastError()).isNull();
  }

  @Test
  void aStartedNodeFiresItsSlotsByItself() {
    Herald h = node("node-a").start();
    h.recurring().save(RecurringSchedule.builder("tick").definition("figures").payload("{\"slot\": \"{{slot}}\"}")
        .every(Duration.ofSeconds(5), clock.instant()).build());
    clock.advance(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
    assertThat(slotOf(received.getFirst())).isEqualTo(clock.instant().toString());
  }
}
