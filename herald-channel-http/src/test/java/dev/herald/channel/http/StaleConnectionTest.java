package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Receivers that close kept-alive connections: a request that met one is sent again at once, not counted. */
class StaleConnectionTest {
  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final HttpChannel http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).build();
  private ClosingReceiver receiver;
  private Herald herald;
  private ManualRunner runner;

  @AfterEach
  void tearDown() throws Exception {
    if (herald != null) {
      herald.close();
    }
    http.close();
    receiver.close();
  }

  private void start(int servedPerConnection) throws Exception {
    receiver = new ClosingReceiver(servedPerConnection);
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).nodeId("test-node").channel(http)
        .define(NoticeDefinition.builder("cb").channel("http", receiver.url("/hook")).retry("5s").build())
        .build();
    runner = new ManualRunner(herald, clock);
  }

  private NoticeDetail detail(Notice n) {
    return herald.operations().find(n.id()).orElseThrow();
  }

  @Test
  void aRequestOnAConnectionTheReceiverClosedIsSentAgainAtOnceWithoutCountingAnAttempt() throws Exception {
    start(1); // every connection serves one request and drops the next
    List<Notice> notices = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      notices.add(herald.enqueue("cb", "{\"n\":" + i + "}"));
      assertThat(runner.runDue()).isEqualTo(1); // one at a time: the next one takes the pooled connection
    }

    for (Notice n : notices) {
      NoticeDetail d = detail(n);
      assertThat(d.notice().status()).as(d.attempts().toString()).isEqualTo(NoticeStatus.SUCCEEDED);
      assertThat(d.attempts()).singleElement().extracting(Attempt::outcome).isEqualTo(DeliveryResult.Outcome.DELIVERED);
    }
    assertThat(receiver.answered).hasSize(12).doesNotHaveDuplicates();
    assertThat(receiver.dropped.get()).as("requests that met a closed kept-alive connection").isGreaterThan(0);
    assertThat(notices).anySatisfy(n -> assertThat(detail(n).attempts().getFirst().detail())
        .contains("connection closed before any byte of a response")
        .contains("sent again at once, not counted as an attempt")
        .contains("HTTP 200 OK: delivered"));
  }

  @Test
  void aFreshConnectionClosedWithoutAnAnswerIsAFailedAttempt() throws Exception {
    start(0); // never answers: the request may have reached the application, so it counts
    Notice n = herald.enqueue("cb", "{}");
    assertThat(runner.runDue()).isEqualTo(1);

    NoticeDetail d = detail(n);
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.attempts()).singleElement().satisfies(a -> {
      assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.RETRY);
      assertThat(a.detail()).contains("I/O error with http://127.0.0.1:").doesNotContain("sent again");
    });
    assertThat(receiver.dropped.get()).isEqualTo(1);
  }
}
