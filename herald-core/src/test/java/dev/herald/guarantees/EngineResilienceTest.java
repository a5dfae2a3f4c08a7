package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The engine keeps delivering and recording whatever a listener or a receiver throws at it. */
class EngineResilienceTest {
  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Deliveries deliveries = new Deliveries();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private Herald.Builder builder() {
    return Herald.builder()
        .h2File(dir.resolve("herald"))
        .nodeId("n1")
        .pollInterval(Duration.ofMillis(100))
        .shutdownTimeout(Duration.ofSeconds(2));
  }

  private Herald started(Herald.Builder b) {
    Herald h = b.build();
    toClose.add(h);
    return h.start();
  }

  private static Notice noticeOf(Herald herald, java.util.UUID id) {
    return herald.operations().find(id).orElseThrow().notice();
  }

  // Finding 7: a listener that throws an Error (not a RuntimeException) killed the writer thread it
  // ran on; after two such Errors no outcome was recorded any more and notices stayed IN_FLIGHT.
  @Test
  @Timeout(60)
  void errorsThrownByListenersDoNotStopOutcomesFromBeingRecorded() {
    AtomicInteger errorsThrown = new AtomicInteger();
    List<Throwable> engineErrors = new CopyOnWriteArrayList<>();
    HeraldListener buggy = new HeraldListener() {
      @Override
      public void onAttempt(Notice notice, Attempt attempt) {
        if (notice.payload().contains("boom")) {
          errorsThrown.incrementAndGet();
          throw new AssertionError("listener bug on " + notice.payload());
        }
      }

      @Override
      public void onEngineError(String step, Throwable error) {
        engineErrors.add(error);
      }
    };
    Herald herald = started(builder()
        .listener(buggy)
        .define(NoticeDefinition.builder("ok").handler("ok").build())
        .handler("ok", deliveries.delivering("n1")));

    String log;
    try (StandardErrorCapture err = new StandardErrorCapture()) {
      // One at a time, so that each Error lands in a batch of its own: two writer threads, two Errors.
      for (int i = 1; i <= 2; i++) {
        int expected = i;
        herald.enqueue("ok", "{\"boom\":" + i + "}");
        // (dontCatchUncaughtExceptions: the assertion is on what users see, not on a thread's death)
        await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10))
            .until(() -> errorsThrown.get() >= expected);
      }

      List<Notice> later = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        later.add(herald.enqueue("ok", "{\"later\":" + i + "}"));
      }
      await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
          .until(() -> later.stream().allMatch(n -> deliveries.count(n.id()) >= 1));
      await("later notices recorded SUCCEEDED").dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> later.stream().allMatch(n -> noticeOf(herald, n.id()).status() == NoticeStatus.SUCCEEDED));
      for (Notice n : later) {
        assertThat(herald.operations().find(n.id()).orElseThrow().attempts()).hasSize(1);
      }
      log = err.text();
    }
    // The listener's failure is not silent: reported to onEngineError, or at least logged.
    assertThat(!engineErrors.isEmpty() || log.contains("listener bug on {\"boom\":1}"))
        .as("listener Error reported (onEngineError: %s; log mentions it: %s)", engineErrors,
            log.contains("listener bug on"))
        .isTrue();
  }

  /** Copies what is written to System.err (where the test logger writes) while it is open. */
  private static final class StandardErrorCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    StandardErrorCapture() {
      System.setErr(new PrintStream(new OutputStream() {
        @Override
        public void write(int b) {
          original.write(b);
          synchronized (copy) {
            copy.write(b);
          }
        }

        @Override
        public void write(byte[] b, int off, int len) {
          original.write(b, off, len);
          synchronized (copy) {
            copy.write(b, off, len);
          }
        }
      }, true, StandardCharsets.UTF_8));
    }

    String text() {
      synchronized (copy) {
        return copy.toString(StandardCharsets.UTF_8);
      }
    }

    @Override
    public void close() {
      System.setErr(original);
    }
  }

  /** Retry-After values a receiver might send: the thousand years, and the largest Duration there is. */
  static Stream<Duration> absurdRetryAfters() {
    return Stream.of(Duration.ofDays(365L * 1000), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
  }

  // Finding 8: an absurd Retry-After overflowed the time arithmetic; the exception was swallowed and
  // the notice stayed leased (IN_FLIGHT) for ever, with no attempt recorded and no error reported.
  @ParameterizedTest
  @MethodSource("absurdRetryAfters")
  @Timeout(60)
  void absurdRetryAfterIsRecordedAsAnAttemptWithABoundedNextAttempt(Duration retryAfter) {
    Herald herald = started(builder()
        .define(NoticeDefinition.builder("api").handler("api").retry("1s").build())
        .handler("api", deliveries.handler("n1", ctx -> DeliveryResult.retryAfter(retryAfter, "come back later"))));

    Instant enqueued = Instant.now();
    Notice n = herald.enqueue("api", "{\"call\":1}");
    await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.count(n.id()) == 1);
    await("attempt recorded, notice no longer IN_FLIGHT").atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> noticeOf(herald, n.id()).status() != NoticeStatus.IN_FLIGHT);

    NoticeDetail d = herald.operations().find(n.id()).orElseThrow();
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().attempts()).isEqualTo(1);
    assertThat(d.attempts()).hasSize(1);
    assertThat(d.notice().nextAttemptAt()).as("next attempt")
        .isAfter(enqueued)
        .isBefore(enqueued.plus(Duration.ofDays(400)));
  }
}
