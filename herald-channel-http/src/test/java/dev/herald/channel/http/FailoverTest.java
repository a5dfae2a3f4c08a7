package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Attempt;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Document 003's fail-over: when the first target fails, the notice goes to the next, and the attempt log says so. */
class FailoverTest {
  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private Receiver primary;
  private Receiver backup;
  private HttpChannel http;
  private Herald herald;
  private ManualRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    primary = new Receiver().respond(r -> Receiver.Response.status(503));
    backup = new Receiver();
  }

  @AfterEach
  void tearDown() {
    herald.close();
    http.close();
    primary.close();
    backup.close();
  }

  private void start(int circuitThreshold, NoticeDefinition definition) {
    http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).circuitFailureThreshold(circuitThreshold).build();
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).nodeId("test-node").channel(http)
        .define(definition).build();
    runner = new ManualRunner(herald, clock);
  }

  private NoticeDetail detail(Notice n) {
    return herald.operations().find(n.id()).orElseThrow();
  }

  private void attempt() {
    runner.runDue();
    clock.advance(Duration.ofSeconds(10));
  }

  @Test
  void afterFailoverAfterFailedAttemptsTheNoticeGoesToTheNextTarget() {
    start(100, NoticeDefinition.builder("sms").channel("http", primary.url("/send")).retry("5s")
        .option("fallback-targets", backup.url("/send")).option("failover-after", "2").build());
    Notice n = herald.enqueue("sms", "{\"to\":\"+1555\"}");
    attempt();
    attempt();
    assertThat(primary.count()).isEqualTo(2);
    assertThat(backup.count()).isZero();
    attempt();

    assertThat(backup.count()).isEqualTo(1);
    NoticeDetail d = detail(n);
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(d.attempts()).extracting(Attempt::detail).satisfiesExactly(
        a -> assertThat(a).contains("> POST " + primary.url("/send")).doesNotContain("fail-over"),
        a -> assertThat(a).contains("> POST " + primary.url("/send")),
        a -> assertThat(a).contains("fail-over: target 2 of 2 (" + backup.url("/send") + ") takes this attempt;"
            + " 2 failed attempts moved it past the first target (option failover-after 2)")
            .contains("> POST " + backup.url("/send")).contains("HTTP 200 OK: delivered"));
  }

  @Test
  void whileTheFirstTargetsCircuitIsOpenNoticesGoToTheNextAtOnce() {
    start(2, NoticeDefinition.builder("sms").channel("http", primary.url("/send")).retry("5s")
        .option("fallback-targets", backup.url("/send")).option("failover-after", "10").build());
    Notice first = herald.enqueue("sms", "{}");
    attempt();
    attempt(); // two failures open the primary's circuit
    assertThat(http.endpoint(primary.url("/")).orElseThrow().circuit()).isEqualTo(EndpointStatus.Circuit.OPEN);

    Notice next = herald.enqueue("sms", "{}");
    runner.runDue();
    assertThat(detail(next).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(detail(next).attempts()).singleElement().extracting(Attempt::detail).asString()
        .contains("fail-over: target 2 of 2").contains("has its circuit open");
    assertThat(detail(first).notice().status()).as("the first one too, at its next attempt").isIn(
        NoticeStatus.SUCCEEDED, NoticeStatus.FAILED);
    assertThat(primary.count()).isEqualTo(2);
  }

  @Test
  void aNoticesOwnTargetMayListFallbacks() {
    start(100, NoticeDefinition.builder("cb").channel("http", "https://example.com/unused").retry("5s")
        .option("failover-after", "1").build());
    Notice n = herald.enqueue(NoticeRequest.of("cb", "{}").target(primary.url("/a") + " " + backup.url("/b")));
    attempt();
    attempt();
    assertThat(detail(n).notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(primary.count()).isEqualTo(1);
    assertThat(backup.requests).singleElement().extracting(Receiver.Request::path).isEqualTo("/b");
    assertThat(detail(n).attempts().getLast().detail()).contains("fail-over: target 2 of 2");
  }

  @Test
  void fallbackTargetsAreCheckedLikeTargets() {
    start(100, NoticeDefinition.builder("x").channel("http", primary.url("/")).build());
    NoticeDefinition.Builder d = NoticeDefinition.builder("y").channel("http", "https://example.com/");
    assertThatThrownBy(() -> http.validate(d.option("fallback-targets", "http://10.0.0.1/x").build()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("options.fallback-targets")
        .hasMessageContaining("private address");
    assertThatThrownBy(() -> http.validate(d.option("failover-after", "0").build()))
        .hasMessageContaining("options.failover-after");
    assertThatThrownBy(() -> herald.enqueue(NoticeRequest.of("x", "{}").target(primary.url("/") + " ftp://x/")))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("ftp");
  }
}
