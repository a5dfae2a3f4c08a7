package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP channel driven by a real Herald engine on H2, step by step with a settable clock. */
class HttpDeliveryTest {
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private Receiver receiver;
  private HttpChannel http;
  private Herald herald;
  private ManualRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    receiver = new Receiver();
    http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).build();
  }

  @AfterEach
  void tearDown() {
    if (herald != null) {
      herald.close();
    }
    http.close();
    receiver.close();
  }

  /** A Herald with one definition "cb" posting to the receiver's /hook. */
  private void start(UnaryOperator<NoticeDefinition.Builder> definition) {
    start(definition, true);
  }

  private void start(UnaryOperator<NoticeDefinition.Builder> definition, boolean define) {
    Herald.Builder b = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(clock)
        .nodeId("test-node")
        .channel(http);
    if (define) {
      b.define(definition.apply(NoticeDefinition.builder("cb").channel("http", receiver.url("/hook")).retry("5s"))
          .build());
    }
    herald = b.build();
    runner = new ManualRunner(herald, clock);
  }

  private NoticeDetail detail(UUID id) {
    return herald.operations().find(id).orElseThrow();
  }

  private Notice notice(UUID id) {
    return detail(id).notice();
  }

  private String lastDetail(UUID id) {
    return detail(id).attempts().getLast().detail();
  }

  @Test
  void postsThePayloadWithStandardHeadersAndLogsTheAttempt() {
    receiver.then(Receiver.Response.ok("thanks").header("X-Receiver", "yes"));
    start(d -> d.option("secrets", SECRET).option("full-success-log", "true"));

    Notice n = herald.enqueue("cb", "{\"order\":42}");
    assertThat(runner.runDue()).isEqualTo(1);

    assertThat(receiver.requests).singleElement().satisfies(r -> {
      assertThat(r.method()).isEqualTo("POST");
      assertThat(r.path()).isEqualTo("/hook");
      assertThat(r.body()).isEqualTo("{\"order\":42}");
      assertThat(r.header("content-type")).isEqualTo("application/json");
      assertThat(r.header("webhook-id")).isEqualTo(n.id().toString());
      assertThat(r.header("webhook-timestamp")).isEqualTo(Long.toString(clock.instant().getEpochSecond()));
      assertThat(r.header("webhook-signature")).startsWith("v1,");
      assertThat(r.header("user-agent")).isEqualTo("Herald-Webhooks/1");
      assertThat(r.header("herald-attempt")).isEqualTo("1");
    });
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);

    Attempt a = detail(n.id()).attempts().getFirst();
    assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.DELIVERED);
    String signature = receiver.requests.getFirst().header("webhook-signature");
    assertThat(a.detail())
        .startsWith("HTTP 200 OK: delivered\n")
        .contains("> POST " + receiver.url("/hook") + "\n")
        .contains("> content-type: application/json\n")
        .contains("> webhook-id: " + n.id() + "\n")
        .contains("> webhook-timestamp: " + clock.instant().getEpochSecond() + "\n")
        .contains("> webhook-signature: v1,****\n")
        .contains("> (body: 12 bytes)\n")
        .contains("< HTTP/1.1 200\n")
        .contains("< x-receiver: yes\n")
        .contains("< thanks\n")
        .containsPattern("took \\d+ ms$")
        .doesNotContain(signature.substring(3))
        .doesNotContain(SECRET.substring(6));
  }

  @Test
  void aSuccessLogsItsRequestLineStatusAndBodyStartWithoutHeadersUnlessAskedTo() {
    receiver.then(Receiver.Response.ok("thanks\nfor it").header("X-Receiver", "yes"),
        Receiver.Response.status(500).header("X-Receiver", "yes"));
    start(d -> d.option("secrets", SECRET).retry("5s"));

    Notice n = herald.enqueue("cb", "{\"order\":42}");
    runner.runDue();
    assertThat(detail(n.id()).attempts().getFirst().detail())
        .isEqualTo("HTTP 200 OK: delivered\n> POST " + receiver.url("/hook") + "\n> (body: 12 bytes)\n"
            + "< HTTP/1.1 200\n< thanks for it\ntook " + tookMillis(detail(n.id()).attempts().getFirst().detail())
            + " ms");

    Notice failed = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(detail(failed.id()).attempts().getFirst().detail()).as("a failure keeps every header")
        .startsWith("HTTP 500 Internal Server Error\n").contains("> webhook-id: " + failed.id() + "\n")
        .contains("> webhook-signature: v1,****\n").contains("< x-receiver: yes\n");
  }

  private static String tookMillis(String detail) {
    return detail.substring(detail.lastIndexOf("took ") + 5, detail.lastIndexOf(" ms"));
  }

  @Test
  void retriesOnTheDefinitionsScheduleWithTheSameIdThenSucceeds() {
    receiver.then(Receiver.Response.status(500).body("boom"), Receiver.Response.status(502),
        Receiver.Response.ok("ok"));
    start(d -> d.retry("5s, 1m"));

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    Notice first = notice(n.id());
    assertThat(first.status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(first.lastError()).startsWith("HTTP 500 Internal Server Error\n").contains("< boom");
    assertThat(first.nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(5));

    assertThat(runner.advanceAndRun(Duration.ofMillis(4_999))).isZero();
    assertThat(runner.advanceAndRun(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(notice(n.id()).nextAttemptAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));
    assertThat(lastDetail(n.id())).startsWith("HTTP 502 Bad Gateway\n");

    assertThat(runner.advanceAndRun(Duration.ofMinutes(1))).isEqualTo(1);
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(notice(n.id()).attempts()).isEqualTo(3);
    assertThat(receiver.requests).extracting(r -> r.header("webhook-id")).containsOnly(n.id().toString());
    assertThat(receiver.requests).extracting(r -> r.header("herald-attempt")).containsExactly("1", "2", "3");
    assertThat(receiver.requests).extracting(r -> r.header("webhook-timestamp")).doesNotHaveDuplicates();
  }

  @Test
  void everyAttemptSendsTheNoticesTraceparentAndANoticeWithoutOneSendsNone() {
    String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    receiver.then(Receiver.Response.status(503), Receiver.Response.ok("ok"), Receiver.Response.ok("ok"));
    start(d -> d.retry("5s").option("full-success-log", "true"));

    Notice n = herald.enqueue(NoticeRequest.of("cb", "{}").traceparent(tp));
    runner.runDue();
    assertThat(runner.advanceAndRun(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(receiver.requests).extracting(r -> r.header("traceparent")).containsExactly(tp, tp);
    assertThat(lastDetail(n.id())).contains("> traceparent: " + tp + "\n");

    Notice plain = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(plain.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(receiver.requests).hasSize(3);
    assertThat(receiver.requests.getLast().header("traceparent")).isNull();
  }

  @Test
  void aResponseBodyIsReadOnlyUpToItsLimit() {
    receiver.then(Receiver.Response.ok("x".repeat(200_000)), Receiver.Response.ok("success"));
    start(d -> d.option("expected-body", "success"));

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).lastError())
        .startsWith("HTTP 200 OK but the body is not the expected 'success' (it is longer than 64 KiB)\n")
        .contains("< (body longer than 64 KiB; the rest was not read)");

    runner.advanceAndRun(Duration.ofSeconds(5));
    assertThat(notice(n.id()).status()).as("the next request, on a new connection").isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void expectedBodyDecidesSuccessAfterTrimming() {
    receiver.then(Receiver.Response.ok("fail"), Receiver.Response.ok("  success\r\n"));
    start(d -> d.option("expected-body", "success"));

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(notice(n.id()).lastError())
        .startsWith("HTTP 200 OK but the body is not the expected 'success'\n")
        .contains("< fail\n");

    runner.advanceAndRun(Duration.ofSeconds(5));
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(lastDetail(n.id())).startsWith("HTTP 200 OK with the expected body: delivered");
  }

  @Test
  void goneEndsTheNoticeAndNothingMoreIsSent() {
    receiver.then(Receiver.Response.status(410));
    start(d -> d);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    Notice dead = notice(n.id());
    assertThat(dead.status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(dead.lastError()).startsWith("HTTP 410 Gone: the receiver says the endpoint is gone; not retrying");

    assertThat(runner.advanceAndRun(Duration.ofHours(2))).isZero();
    assertThat(receiver.count()).isEqualTo(1);
  }

  @Test
  void retryAfterInSecondsIsHonoured() {
    receiver.then(Receiver.Response.status(429).header("Retry-After", "120"), Receiver.Response.ok(""));
    start(d -> d);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    Instant failedAt = clock.instant();
    assertThat(notice(n.id()).nextAttemptAt()).isEqualTo(failedAt.plusSeconds(120));
    assertThat(notice(n.id()).lastError())
        .startsWith("HTTP 429 Too Many Requests with Retry-After: 120; next attempt in no less than 2m");

    assertThat(runner.advanceAndRun(Duration.ofSeconds(119))).isZero();
    assertThat(receiver.count()).isEqualTo(1);
    runner.advanceAndRun(Duration.ofSeconds(1));
    assertThat(receiver.count()).isEqualTo(2);
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
  }

  @Test
  void retryAfterAsHttpDateIsHonoured() {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(clock.instant().plusSeconds(90).atZone(ZoneOffset.UTC));
    receiver.then(Receiver.Response.status(503).header("Retry-After", date));
    start(d -> d);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(90));
    assertThat(notice(n.id()).lastError()).startsWith("HTTP 503 Service Unavailable with Retry-After: " + date);
  }

  @Test
  void retryAfterIsCappedByMaxRetryAfterAndByOneHourByDefault() throws Exception {
    try (Receiver other = new Receiver()) {
      receiver.respond(r -> Receiver.Response.status(429).header("Retry-After", "86400"));
      other.respond(r -> Receiver.Response.status(503).header("Retry-After", "86400"));
      herald = Herald.builder()
          .h2File(dir.resolve("herald"))
          .clock(clock)
          .channel(http)
          .define(NoticeDefinition.builder("capped").channel("http", receiver.url("/a")).retry("5s")
              .option("max-retry-after", "10m").build())
          .define(NoticeDefinition.builder("default-cap").channel("http", other.url("/b")).retry("5s").build())
          .build();
      runner = new ManualRunner(herald, clock);

      Notice capped = herald.enqueue("capped", "{}");
      Notice byDefault = herald.enqueue("default-cap", "{}");
      runner.runDue();
      assertThat(notice(capped.id()).nextAttemptAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(10)));
      assertThat(notice(capped.id()).lastError()).contains("no less than 10m (capped by option max-retry-after)");
      assertThat(notice(byDefault.id()).nextAttemptAt()).isEqualTo(clock.instant().plus(Duration.ofHours(1)));
    }
  }

  @Test
  void redirectsAreNotFollowed() {
    receiver.then(Receiver.Response.status(302).header("Location", "/elsewhere"));
    start(d -> d);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(notice(n.id()).lastError())
        .startsWith("HTTP 302 Found: redirect to " + receiver.url("/elsewhere") + " not followed");
    assertThat(receiver.requests).extracting(Receiver.Request::path).containsExactly("/hook");
  }

  @Test
  void aSlowReceiverTimesOutWithAClearDetail() {
    receiver.then(Receiver.Response.ok("late").after(Duration.ofSeconds(5)));
    start(d -> d.option("timeout", "300ms"));

    Notice n = herald.enqueue("cb", "{}");
    long t0 = System.nanoTime();
    runner.runDue();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(notice(n.id()).lastError())
        .startsWith("timed out: no complete response from http://127.0.0.1:" + receiver.port() + " within 300ms (option timeout)")
        .contains("> POST ")
        .contains("< (no response)");
  }

  @Test
  void aClosedPortIsARetryWithAClearDetail() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(clock)
        .channel(http)
        .define(NoticeDefinition.builder("cb").channel("http", "http://127.0.0.1:" + port + "/x").retry("5s").build())
        .build();
    runner = new ManualRunner(herald, clock);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(notice(n.id()).lastError()).startsWith("could not connect to http://127.0.0.1:" + port);
  }

  @Test
  void theLoggedBodyIsBounded() {
    receiver.then(Receiver.Response.status(500).body("x".repeat(5_000)));
    start(d -> d);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    String log = lastDetail(n.id());
    assertThat(log.length()).isLessThanOrEqualTo(Attempt.MAX_DETAIL);
    assertThat(log.chars().filter(c -> c == 'x').count()).isLessThanOrEqualTo(1_000);
    assertThat(log).contains("more chars]").containsPattern("took \\d+ ms$");
  }

  @Test
  void badOptionsAreRefusedWhenSavedAndReportedWithoutSendingOrRevealingSecrets() {
    assertThatThrownBy(() -> start(d -> d.option("secrets", SECRET + " notasecretvalue")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("options.secrets");
          assertThat(e.getMessage()).doesNotContain("notasecretvalue").doesNotContain(SECRET.substring(6));
        });

    // A definition stored before its options were checked (or changed in the database) still fails safely.
    start(d -> d);
    NoticeDefinition broken = herald.definitions().find("cb").orElseThrow().toBuilder()
        .option("secrets", SECRET + " notasecretvalue").build();
    try (var c = herald.dataSource().getConnection();
        var ps = c.prepareStatement("UPDATE herald_definition SET options = ? WHERE name = 'cb'")) {
      ps.setString(1, "secrets=" + broken.options().get("secrets") + "\n");
      ps.executeUpdate();
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
    Herald first = herald; // stays open: closing it would close the shared channel too
    start(d -> d, false);

    Notice n = herald.enqueue("cb", "{}");
    runner.runDue();
    assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(notice(n.id()).lastError())
        .contains("options.secrets: entry 2 of 2 is not a Standard Webhooks secret")
        .contains("no request sent")
        .doesNotContain("notasecretvalue")
        .doesNotContain(SECRET.substring(6));
    assertThat(receiver.count()).isZero();

    assertThatThrownBy(() -> http.validate(NoticeDefinition.builder("t").channel("http", receiver.url("/"))
        .option("timeout", "soon").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.timeout"));
    assertThatThrownBy(() -> http.validate(NoticeDefinition.builder("t").channel("http", receiver.url("/"))
        .option("max-concurrency", "0").build()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("options.max-concurrency"));
    first.close();
  }

  @Test
  void aNoticeMayCarryItsOwnTargetWhichIsCheckedToo() throws Exception {
    try (Receiver other = new Receiver()) {
      start(d -> d);
      Notice n = herald.enqueue(NoticeRequest.of("cb", "{\"task\":7}").target(other.url("/task-callback")));
      runner.runDue();
      assertThat(notice(n.id()).status()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(other.requests).singleElement()
          .satisfies(r -> assertThat(r.path()).isEqualTo("/task-callback"));
      assertThat(receiver.count()).isZero();

      assertThatThrownBy(() -> herald.enqueue(NoticeRequest.of("cb", "{}").target("http://169.254.169.254/latest")))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("target");
            assertThat(e.reason()).contains("a cloud metadata address 169.254.169.254");
          });
    }
  }
}
