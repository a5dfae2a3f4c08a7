package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A webhook definition without a URL of its own (such as the server's direct callbacks): each notice
 * gives its URL, or its fail-over URLs as a list ({@link NoticeRequest#targets}).
 */
class PerNoticeTargetsTest {
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
    http = HttpChannel.builder().allow("127.0.0.0/8").clock(clock).build();
    herald = Herald.builder().h2File(dir.resolve("herald")).clock(clock).nodeId("test-node").channel(http)
        .define(NoticeDefinition.builder("callback").perNoticeTarget("http").retry("5s")
            .option("failover-after", "1").build())
        .build();
    runner = new ManualRunner(herald, clock);
  }

  @AfterEach
  void tearDown() {
    herald.close();
    http.close();
    primary.close();
    backup.close();
  }

  @Test
  void aNoticesListOfUrlsFailsOverInItsOrder() {
    Notice n = herald.enqueue(NoticeRequest.of("callback", "{}").targets(List.of(primary.url("/a"), backup.url("/b"))));
    assertThat(n.target()).isEqualTo(primary.url("/a") + " " + backup.url("/b"));
    runner.runDue();
    clock.advance(Duration.ofSeconds(10));
    runner.runDue();

    assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    assertThat(primary.count()).isEqualTo(1);
    assertThat(backup.requests).singleElement().extracting(Receiver.Request::path).isEqualTo("/b");
  }

  @Test
  void aNoticeWithoutUrlIsRefusedAndSoIsABadOne() {
    assertThatThrownBy(() -> herald.enqueue("callback", "{}"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("target");
          assertThat(e.reason()).contains("definition 'callback' has no target of its own");
        });
    assertThatThrownBy(() -> herald.enqueue(NoticeRequest.of("callback", "{}")
        .targets(List.of(backup.url("/b"), "ftp://x/"))))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("target");
          assertThat(e.reason()).contains("ftp");
        });
  }

  @Test
  void fallbackTargetsMakeNoSenseWithoutATargetOfItsOwn() {
    assertThatThrownBy(() -> herald.definitions().save(NoticeDefinition.builder("y").perNoticeTarget("http")
        .option("fallback-targets", backup.url("/b")).build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("options.fallback-targets");
          assertThat(e.reason()).contains("each notice gives its URLs");
        });
    assertThat(herald.definitions().find("y")).isEmpty();
  }
}
