package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Notice;
import dev.herald.NoticeStatus;
import dev.herald.StoreException;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import java.lang.reflect.Proxy;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The group-commit writer keeps going when the database refuses one row, and waits out an outage. */
class OutcomeWriterTest {
  private final Map<UUID, Boolean> recorded = new ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();

  private static Change change(UUID id) {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    Notice n = new Notice(id, "d", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t, null, null);
    NoticeRow row = new NoticeRow(n, "node", t.plusSeconds(30), 2, 0);
    return Transitions.release(row, t);
  }

  private OutcomeWriter writer(java.util.function.Function<List<Change>, List<Boolean>> apply) {
    NoticeStore store = (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {NoticeStore.class}, (proxy, method, args) -> {
          if (!method.getName().equals("apply")) {
            throw new UnsupportedOperationException(method.getName());
          }
          calls.incrementAndGet();
          @SuppressWarnings("unchecked")
          List<Change> changes = (List<Change>) args[0];
          return apply.apply(changes);
        });
    return new OutcomeWriter(store, 100, (p, applied) -> recorded.put(p.change().expected().id(), applied),
        new Listeners(List.of()));
  }

  @Test
  void aRowTheDatabaseRefusesIsGivenUpAloneAndTheRestOfTheBatchIsRecorded() throws Exception {
    UUID poison = UUID.randomUUID();
    List<OutcomeWriter.Pending> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(new OutcomeWriter.Pending(null, change(UUID.randomUUID()), null));
    }
    batch.add(new OutcomeWriter.Pending(null, change(poison), null));

    writer(changes -> {
      if (changes.stream().anyMatch(c -> c.expected().id().equals(poison))) {
        throw new StoreException("value too long for column", new java.sql.SQLDataException("22001"));
      }
      return changes.stream().map(c -> true).toList();
    }).write(batch);

    assertThat(recorded).hasSize(6);
    assertThat(recorded.get(poison)).isFalse();
    assertThat(recorded.entrySet().stream().filter(e -> !e.getKey().equals(poison)))
        .allSatisfy(e -> assertThat(e.getValue()).isTrue());
  }

  /** Finding 13: an outcome the store keeps refusing was reported stale and redelivered without end. */
  @Test
  void anOutcomeRefusedForItsTextIsRecordedWithTheTextReduced() throws Exception {
    UUID id = UUID.randomUUID();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    Notice n = new Notice(id, "d", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t, null, null);
    NoticeRow row = new NoticeRow(n, "node", t.plusSeconds(30), 2, 0);
    Change refused = Transitions.afterAttempt(new Transitions.AttemptFacts(row,
            dev.herald.NoticeDefinition.builder("d").handler("h").retry("1m").build(),
            dev.herald.DeliveryResult.retry("receiver said \u0000\u2603 no"), t, java.time.Duration.ofMillis(5), "node"),
        t, null, t, new java.util.Random(1)).change();
    List<Change> written = new ArrayList<>();

    writer(changes -> {
      for (Change c : changes) {
        if (c.next().notice().lastError().chars().anyMatch(ch -> ch < 0x20 || ch > 0x7e)) {
          throw new StoreException("invalid byte sequence", new java.sql.SQLDataException("22021"));
        }
      }
      written.addAll(changes);
      return changes.stream().map(c -> true).toList();
    }).write(List.of(new OutcomeWriter.Pending(null, refused, null)));

    assertThat(recorded.get(id)).as("recorded, not given up").isTrue();
    assertThat(written).singleElement().satisfies(c -> {
      assertThat(c.next().notice().status()).isEqualTo(NoticeStatus.FAILED);
      assertThat(c.next().notice().lastError()).startsWith("receiver said ?? no").contains("[reduced");
      assertThat(c.attempt().detail()).startsWith("receiver said ?? no");
    });
  }

  @Test
  void anUnreachableDatabaseIsWaitedOutNotGivenUp() throws Exception {
    UUID id = UUID.randomUUID();
    writer(changes -> {
      if (calls.get() <= 5) {
        throw new StoreException("connection refused", new SQLTransientConnectionException("down", "08001"));
      }
      return List.of(true);
    }).write(List.of(new OutcomeWriter.Pending(null, change(id), null)));

    assertThat(calls.get()).isEqualTo(6);
    assertThat(recorded).containsEntry(id, true);
  }
}
