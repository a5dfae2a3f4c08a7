package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad input gets an exception that names the field and says why, and writes nothing. */
class BadInputTest {
  @TempDir Path dir;
  private Herald herald;

  @BeforeEach
  void setUp() {
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(new SettableClock(Instant.parse("2026-01-01T00:00:00Z")))
        .maxPayloadBytes(1_000)
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", ctx -> DeliveryResult.delivered())
        .build();
  }

  @AfterEach
  void tearDown() {
    herald.close();
  }

  private void assertRefused(ThrowingCallable call, String field, String reasonFragment) {
    assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      assertThat(e.reason()).contains(reasonFragment);
      assertThat(e.getMessage()).startsWith(field + ": ");
    });
    assertThat(rows("herald_notice")).as("nothing written").isZero();
    assertThat(rows("herald_idempotency")).isZero();
  }

  @Test
  void unknownDefinition() {
    assertRefused(() -> herald.enqueue("no-such", "{}"), "definition", "no definition named 'no-such'");
    assertThatThrownBy(() -> herald.enqueue("no-such", "{}")).isInstanceOf(UnknownDefinitionException.class);
    assertRefused(() -> herald.enqueue(NoticeRequest.of(" ", "{}")), "definition", "must not be blank");
  }

  @Test
  void oversizedPayload() {
    String big = "\"" + "x".repeat(1_000) + "\"";
    assertRefused(() -> herald.enqueue("ok", big), "payload", "is 1002 bytes; the limit is 1000");
  }

  @Test
  void payloadThatIsNotJson() {
    assertRefused(() -> herald.enqueue("ok", "{\"a\":}"), "payload", "not valid JSON at offset 5");
    assertRefused(() -> herald.enqueue("ok", null), "payload", "must not be null");
  }

  /** A String payload is checked as it always was, exact words included, beside checked ones. */
  @Test
  void aStringPayloadIsStillCheckedBesideJsonPayloads() {
    String noValue = "expected a value (object, array, string, number, true, false or null)";
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{\"a\":}")), "payload",
        "not valid JSON at offset 5: " + noValue + ", found '}'");
    assertRefused(() -> herald.enqueueAll(List.of(NoticeRequest.of("ok", JsonPayload.of("{}")),
        NoticeRequest.of("ok", "[1,"))), "notices[1].payload", "not valid JSON at offset 3: " + noValue
        + ", found end of input");
    assertRefused(() -> JsonPayload.of("{\"a\":}"), "payload", "not valid JSON at offset 5: " + noValue);
  }

  /** What the server's create path relies on: a {@link JsonPayload} is parsed once, where it was made. */
  @Test
  void intakeDoesNotScanAJsonPayloadAgain() {
    // Made without a check (only this package can), so a second scan at intake would refuse it.
    Notice n = herald.enqueue(NoticeRequest.of("ok", new JsonPayload("{\"a\":}")).delay(Duration.ofHours(1)));
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().payload()).isEqualTo("{\"a\":}");
    assertThatThrownBy(() -> herald.enqueue(NoticeRequest.of("ok", new JsonPayload("\"" + "x".repeat(1_000) + "\""))))
        .as("its size is still checked").isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.reason()).isEqualTo("is 1002 bytes; the limit is 1000"));
  }

  @Test
  void otherRequestFields() {
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").idempotencyKey("k".repeat(201))),
        "idempotencyKey", "1 to 200 characters");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofSeconds(-1))),
        "delay", "must not be negative");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").description("d".repeat(4001))),
        "description", "at most 4000 characters");
  }

  @Test
  void aTraceparentThatIsNotW3cIsRefused() {
    for (String bad : List.of("", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01")) {
      assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").traceparent(bad)), "traceparent",
          "must be a W3C traceparent");
    }
    assertRefused(() -> herald.enqueueAll(List.of(NoticeRequest.of("ok", "{}"),
        NoticeRequest.of("ok", "{}").traceparent("nope"))), "notices[1].traceparent", "W3C");
    assertThat(herald.enqueue(NoticeRequest.of("ok", "{}")
        .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).traceparent())
        .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  }

  // Issue 20, finding 6: such instants overflowed toEpochMilli() with an ArithmeticException (an
  // intake thread died on it), and such durations were accepted and overflowed later, in the writer.
  @Test
  void instantsAndDurationsOutOfRangeNameTheirField() {
    Instant far = Instant.parse("+300000000-01-01T00:00:00Z");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").fireAt(far)), "fireAt", "9999-12-31");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").fireAt(Instant.MAX)), "fireAt", "9999-12-31");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").fireAt(Instant.parse("1969-12-31T23:59:59Z"))),
        "fireAt", "1970-01-01");
    assertRefused(() -> herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofSeconds(Long.MAX_VALUE / 2))),
        "delay", "9999-12-31");
    assertRefused(() -> herald.enqueueAll(List.of(NoticeRequest.of("ok", "{}"), NoticeRequest.of("ok", "{}")
        .fireAt(far))), "notices[1].fireAt", "9999-12-31");
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofHours(1)));
    assertThatThrownBy(() -> herald.operations().edit(n.id(), NoticeEdit.fireAt(far)))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("fireAt"));
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().fireAt()).isBefore(far);

    assertThatThrownBy(() -> NoticeDefinition.builder("x").handler("ok").retry("1000000000d").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("retrySchedule");
          assertThat(e.reason()).contains("at most");
        });
    assertThatThrownBy(() -> NoticeDefinition.builder("x").handler("ok").confirmWithin(Duration.ofMillis(Long.MAX_VALUE))
        .build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("confirmTimeout"));
    assertThatThrownBy(() -> NoticeDefinition.builder("x").handler("ok").maxInterval(Duration.ofDays(1_000_000))
        .build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("maxInterval"));
    assertThatThrownBy(() -> NoticeDefinition.builder("x").handler("ok")
        .retry("exponential(base=1s, cap=100000000d)").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).startsWith("retrySchedule"));
  }

  @Test
  void oneBadItemInABatchWritesNoneAndNamesItsIndex() {
    assertRefused(() -> herald.enqueueAll(List.of(
            NoticeRequest.of("ok", "{}").idempotencyKey("first"),
            NoticeRequest.of("ok", "[1,"))),
        "notices[1].payload", "not valid JSON");
  }

  @Test
  void malformedScheduleNamesTheFieldAndSavesNothing() {
    assertThatThrownBy(() -> NoticeDefinition.builder("bad").handler("ok").retry("5s, 1x").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("retrySchedule");
          assertThat(e.reason()).contains("'1x'");
        });
    assertThat(herald.definitions().find("bad")).isEmpty();
  }

  @Test
  void invalidDefinitionFields() {
    assertThatThrownBy(() -> NoticeDefinition.builder("has space").handler("ok").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("name"));
    assertThatThrownBy(() -> NoticeDefinition.builder("x").handler("ok").maxAttempts(0).build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("maxAttempts"));
    assertThatThrownBy(() -> NoticeDefinition.builder("x").build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    assertThatThrownBy(() -> AlertPolicy.parse("sometimes"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("alertPolicy"));
    assertThatThrownBy(() -> herald.definitions().save(NoticeDefinition.builder("x").channel("carrier-pigeon", "t").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("channel");
          assertThat(e.reason()).contains("no channel named 'carrier-pigeon'");
        });
    assertThat(herald.definitions().find("x")).isEmpty();
  }

  @Test
  void illegalTransitionChangesNothing() {
    Notice n = herald.enqueue(NoticeRequest.of("ok", "{}").delay(Duration.ofHours(1)));
    herald.operations().cancel(n.id());
    assertThatThrownBy(() -> herald.operations().confirm(n.id()))
        .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
          assertThat(e.from()).isEqualTo(NoticeStatus.CANCELLED);
          assertThat(e.to()).isEqualTo(NoticeStatus.SUCCEEDED);
          assertThat(e.noticeId()).isEqualTo(n.id());
        });
    assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.CANCELLED);
  }

  @Test
  void unknownNoticeId() {
    UUID id = UUID.randomUUID();
    assertThatThrownBy(() -> herald.operations().cancel(id))
        .isInstanceOf(NoticeNotFoundException.class)
        .hasMessage("notice " + id + " not found");
    assertThat(herald.operations().find(id)).isEmpty();
  }

  @Test
  void badEngineSettingsNameTheSetting() {
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("other")).nodeTimeout(Duration.ofMillis(50)).build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("nodeTimeout");
          assertThat(e.reason()).contains("at least 200 ms");
        });
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("other")).maxHeld(0).build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("maxHeld"));
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("other")).lookAhead(Duration.ofSeconds(Long.MAX_VALUE))
        .build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("lookAhead"));
  }

  @Test
  void badQueryPaging() {
    assertThatThrownBy(() -> NoticeQuery.all().page(0, 0))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("limit"));
    assertThatThrownBy(() -> NoticeQuery.all().page(-1, 10))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("offset"));
  }

  private long rows(String table) {
    try (Connection c = herald.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
