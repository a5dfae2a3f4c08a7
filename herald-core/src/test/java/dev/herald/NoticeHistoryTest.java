package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.events.EventEndpoint;
import dev.herald.events.EventRequest;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay and expunge: a definition's notices of a time range sent again (everything its receiver got,
 * or only what failed), and a finished notice's payload and attempt details removed with its ids,
 * times and outcomes kept; by id, by idempotency key, and a whole event.
 */
class NoticeHistoryTest {
  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-20T10:00:00Z"));
  private final List<String> received = new CopyOnWriteArrayList<>();
  private Herald herald;

  private Herald start() {
    herald = Herald.builder().h2File(dir.resolve("h")).clock(clock)
        .define(NoticeDefinition.builder("partner").handler("partner").maxAttempts(1).build())
        .handler("partner", ctx -> {
          received.add(ctx.payload());
          return ctx.payload().contains("bad") ? DeliveryResult.fail("refused: " + ctx.payload())
              : DeliveryResult.delivered("took " + ctx.payload());
        })
        .build();
    return herald;
  }

  @AfterEach
  void close() {
    if (herald != null) {
      herald.close();
    }
  }

  @Test
  void aReplaySendsAgainWhatTheReceiverGotInTheRangeOrOnlyWhatFailed() {
    start();
    Notice before = herald.enqueue("partner", "{\"n\": \"before\"}");
    clock.advance(Duration.ofHours(1));
    Instant from = clock.instant();
    Notice ok = herald.enqueue("partner", "{\"n\": \"ok\"}");
    Notice bad = herald.enqueue("partner", "{\"n\": \"bad\"}");
    Notice later = herald.enqueue(NoticeRequest.of("partner", "{\"n\": \"later\"}").delay(Duration.ofDays(1)));
    clock.advance(Duration.ofHours(1));
    Instant to = clock.instant();
    herald.enqueue("partner", "{\"n\": \"after\"}");
    herald.runDue();
    assertThat(herald.operations().find(bad.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.DEAD);
    received.clear();

    NoticeHistory.ReplayResult failed = herald.history().replay("partner", from, to, true);
    assertThat(failed).isEqualTo(new NoticeHistory.ReplayResult(1, 1, 0, false));
    herald.runDue();
    assertThat(received).containsExactly("{\"n\": \"bad\"}");

    received.clear();
    NoticeHistory.ReplayResult all = herald.history().replay("partner", from, to, false);
    assertThat(all.resent()).as("ok and bad; not the pending one, nor those outside the range").isEqualTo(2);
    herald.runDue();
    assertThat(received).containsExactlyInAnyOrder("{\"n\": \"ok\"}", "{\"n\": \"bad\"}");
    assertThat(herald.operations().find(later.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.PENDING);
    assertThat(herald.operations().find(ok.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(before).isNotNull();
    assertThatThrownBy(() -> herald.history().replay("partner", to, from, false))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("createdTo"));
  }

  @Test
  void anExpungedNoticeKeepsItsIdsTimesAndOutcomesButNotItsPayloadOrAttemptDetails() {
    start();
    Notice ok = herald.enqueue(NoticeRequest.of("partner", "{\"email\": \"ann@example.com\"}").idempotencyKey("ann"));
    Notice bad = herald.enqueue("partner", "{\"email\": \"bad@example.com\"}");
    Notice waiting = herald.enqueue(NoticeRequest.of("partner", "{\"email\": \"cy@example.com\"}")
        .delay(Duration.ofHours(1)));
    herald.runDue();

    herald.history().expunge(bad.id());
    NoticeDetail d = herald.operations().find(bad.id()).orElseThrow();
    assertThat(d.notice().payload()).isEqualTo("null");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(d.notice().lastError()).isEqualTo(NoticeHistory.EXPUNGED);
    assertThat(d.notice().createdAt()).isEqualTo(bad.createdAt());
    assertThat(d.attempts()).hasSize(1).allSatisfy(a -> {
      assertThat(a.detail()).isEqualTo(NoticeHistory.EXPUNGED);
      assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.FAIL);
    });

    assertThat(herald.history().expungeByKey("partner", "ann")).isEqualTo(ok.id());
    assertThat(herald.operations().find(ok.id()).orElseThrow().toString()).doesNotContain("ann@example.com");
    assertThatThrownBy(() -> herald.history().expungeByKey("partner", "nobody"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("idempotencyKey"));
    assertThatThrownBy(() -> herald.history().expunge(waiting.id()))
        .isInstanceOfSatisfying(NoticeHistory.NotFinishedException.class,
            e -> assertThat(e.status()).isEqualTo(NoticeStatus.PENDING));
    assertThat(herald.operations().find(waiting.id()).orElseThrow().notice().payload()).contains("cy@example.com");
    assertThatThrownBy(() -> herald.history().expunge(UUID.randomUUID())).isInstanceOf(NoticeNotFoundException.class);

    // an expunged notice replayed sends JSON null, not the data that was taken away
    received.clear();
    herald.operations().resend(ok.id());
    herald.runDue();
    assertThat(received).containsExactly("null");
  }

  @Test
  void anEventIsExpungedWithItsFinishedNoticesAndNamesThoseStillLive() {
    start();
    herald.events().saveType(EventType.of("user.created", null, null));
    herald.events().saveEndpoint(EventEndpoint.builder("crm").channel("local", "partner").subscribe("user.created")
        .build());
    herald.events().saveEndpoint(EventEndpoint.builder("slow").channel("local", "partner").subscribe("user.created")
        .build());
    PublishedEvent e = herald.events().publish(EventRequest.of("user.created", "{\"email\": \"dee@example.com\"}"));
    UUID slow = e.deliveries().stream().filter(x -> x.endpointId().equals("slow")).findFirst().orElseThrow().noticeId();
    herald.operations().edit(slow, new NoticeEdit(null, clock.instant().plus(Duration.ofHours(1)), null));
    herald.runDue();

    NoticeHistory.EventExpunge result = herald.history().expungeEvent("default", e.event().id());
    assertThat(result.notFinished()).containsExactly(slow);
    assertThat(result.expunged()).hasSize(1);
    PublishedEvent seen = herald.events().find("default", e.event().id()).orElseThrow();
    assertThat(seen.event().expunged()).isTrue();
    assertThat(seen.event().payload()).isEqualTo("null");
    assertThat(herald.operations().find(result.expunged().getFirst()).orElseThrow().notice().payload())
        .isEqualTo("null");
    assertThatThrownBy(() -> herald.history().expungeEvent("other", e.event().id()))
        .isInstanceOfSatisfying(InvalidInputException.class, x -> assertThat(x.field()).isEqualTo("id"));
  }
}
