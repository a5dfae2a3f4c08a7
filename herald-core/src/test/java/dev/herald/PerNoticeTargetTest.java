package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.recurring.RecurringSchedule;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import dev.herald.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A definition without a target of its own: each notice gives one. Only a channel that allows it
 * takes such a definition; a notice without a target is refused at enqueue, naming {@code target}.
 */
class PerNoticeTargetTest {
  @TempDir Path dir;
  private Herald herald;
  private final LinkedBlockingQueue<String> sentTo = new LinkedBlockingQueue<>();

  /** A channel that takes definitions without a target and records where each attempt goes. */
  private final class Relay implements Channel {
    @Override
    public String name() {
      return "relay";
    }

    @Override
    public boolean perNoticeTargets() {
      return true;
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
      sentTo.add(delivery.target());
      return CompletableFuture.completedFuture(DeliveryResult.delivered());
    }
  }

  @BeforeEach
  void setUp() {
    herald = Herald.builder()
        .h2File(dir.resolve("herald"))
        .clock(new SettableClock(Instant.parse("2026-01-01T00:00:00Z")))
        .channel(new Relay())
        .define(NoticeDefinition.builder("callback").perNoticeTarget("relay").build())
        .build()
        .start();
  }

  @AfterEach
  void tearDown() {
    herald.close();
  }

  @Test
  void aDefinitionWithoutTargetIsStoredAsSuchAndShownAsNone() {
    NoticeDefinition d = herald.definitions().find("callback").orElseThrow();
    assertThat(d.perNoticeTarget()).isTrue();
    assertThat(d.target()).isNull();
    assertThat(d.toBuilder().retry("5s").build().perNoticeTarget()).as("a variant keeps it").isTrue();
  }

  @Test
  void aNoticeWithoutTargetIsRefusedAtEnqueueAndNothingIsWritten() throws Exception {
    assertThatThrownBy(() -> herald.enqueue("callback", "{}"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("target");
          assertThat(e.reason()).isEqualTo("is required: definition 'callback' has no target of its own, each of its"
              + " notices gives one");
        });
    assertThat(rows()).isZero();
  }

  @Test
  void eachNoticeGoesToItsOwnTargetAndFailOverTargetsKeepTheirOrder() {
    herald.enqueue(NoticeRequest.of("callback", "{}").target("one"));
    assertThat(poll()).isEqualTo("one");

    Notice n = herald.enqueue(NoticeRequest.of("callback", "{}").targets(List.of("first", "second", "third")));
    assertThat(n.target()).isEqualTo("first second third");
    assertThat(Targets.parse(poll()).list()).containsExactly("first", "second", "third");
  }

  @Test
  void aChannelThatDeliversToItsDefinitionsTargetRefusesADefinitionWithout() {
    assertThatThrownBy(() -> herald.definitions().save(NoticeDefinition.builder("x").perNoticeTarget("local").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("target");
          assertThat(e.reason()).contains("is required: channel 'local' delivers to its definition's target");
        });
    assertThat(herald.definitions().find("x")).isEmpty();
    assertThatThrownBy(() -> NoticeDefinition.builder("y").channel("relay", null).build())
        .as("a missing target is a mistake unless asked for")
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("target");
          assertThat(e.reason()).contains("perNoticeTarget(channel)");
        });
  }

  @Test
  void aScheduleCannotFeedADefinitionWithoutTarget() {
    assertThatThrownBy(() -> herald.recurring().save(RecurringSchedule.builder("ping").definition("callback")
        .payload("{}").every(Duration.ofMinutes(1), null).build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("definition");
          assertThat(e.reason()).contains("has no target of its own");
        });
  }

  private String poll() {
    String[] got = new String[1];
    await().atMost(Duration.ofSeconds(10)).until(() -> (got[0] = sentTo.poll()) != null);
    return got[0];
  }

  private long rows() throws Exception {
    try (Connection c = herald.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM herald_notice")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
