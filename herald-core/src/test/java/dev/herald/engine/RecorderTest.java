package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Notice;
import dev.herald.NoticeStatus;
import dev.herald.StoreException;
import dev.herald.spi.Applied;
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

/**
 * The group-commit recorder keeps going when the database refuses one row, waits out an outage, and
 * learns what a commit without an answer wrote before writing again.
 */
class RecorderTest {
  private final Map<UUID, Boolean> recorded = new ConcurrentHashMap<>();
  /** Rows the fake store answers {@code find} with (after a lost answer). */
  private final Map<UUID, NoticeRow> rows = new ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();

  private static Change change(UUID id) {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    Notice n = new Notice(id, "d", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t, null, null);
    NoticeRow row = new NoticeRow(n, "node", t.plusSeconds(30), 2, 0);
    return Transitions.release(row, t);
  }

  private Recorder writer(java.util.function.Function<List<Change>, List<Boolean>> apply) {
    NoticeStore store = (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {NoticeStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("find")) {
            return java.util.Optional.ofNullable(rows.get((UUID) args[0]));
          }
          if (!method.getName().equals("apply")) {
            throw new UnsupportedOperationException(method.getName());
          }
          calls.incrementAndGet();
          @SuppressWarnings("unchecked")
          List<Change> changes = (List<Change>) args[0];
          return apply.apply(changes).stream().map(b -> b ? Applied.APPLIED : Applied.STALE).toList();
        });
    return new Recorder(store, 100, (p, applied) -> recorded.put(p.change().expected().id(), applied.written()),
        new Listeners(List.of()));
  }

  @Test
  void aRowTheDatabaseRefusesIsGivenUpAloneAndTheRestOfTheBatchIsRecorded() throws Exception {
    UUID poison = UUID.randomUUID();
    List<Recorder.Pending> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(new Recorder.Pending(null, change(UUID.randomUUID()), null));
    }
    batch.add(new Recorder.Pending(null, change(poison), null));

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
    }).write(List.of(new Recorder.Pending(null, refused, null)));

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
    }).write(List.of(new Recorder.Pending(null, change(id), null)));

    assertThat(calls.get()).isEqualTo(6);
    assertThat(recorded).containsEntry(id, true);
  }

  // Issue 20, finding 3: a batch committed, its answer was lost; written again, its version checks
  // refused it as stale, and its notices were forgotten while their rows stayed held.
  @Test
  void aCommitWithoutAnAnswerIsReadBackNotReportedStale() throws Exception {
    UUID landed = UUID.randomUUID();
    UUID changedMeanwhile = UUID.randomUUID();
    UUID notWritten = UUID.randomUUID();
    List<List<UUID>> writes = new ArrayList<>();
    writer(changes -> {
      writes.add(changes.stream().map(c -> c.expected().id()).toList());
      if (writes.size() == 1) {
        for (Change c : changes) { // the commit lands for two of them (as seen by find), then the answer is lost
          if (c.expected().id().equals(landed)) {
            rows.put(landed, c.next());
          } else if (c.expected().id().equals(changedMeanwhile)) {
            NoticeRow other = c.expected();
            rows.put(changedMeanwhile, new NoticeRow(other.notice(), "someone-else", other.leaseUntil(),
                other.version() + 5, other.retryBase()));
          } else {
            rows.put(c.expected().id(), c.expected());
          }
        }
        throw new StoreException("connection reset", new java.sql.SQLRecoverableException("reset", "08006"), true);
      }
      return changes.stream().map(c -> true).toList();
    }).write(List.of(new Recorder.Pending(null, change(landed), null),
        new Recorder.Pending(null, change(changedMeanwhile), null),
        new Recorder.Pending(null, change(notWritten), null)));

    assertThat(recorded).containsEntry(landed, true).containsEntry(changedMeanwhile, false).containsEntry(notWritten, true);
    assertThat(writes).as("written again: only the change that had not landed").hasSize(2);
    assertThat(writes.get(1)).containsExactly(notWritten);
  }
}
