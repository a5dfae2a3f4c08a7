package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Option max-rate and per-endpoint rates: notices over the rate wait for their turn without an attempt. */
class RateLimitTest {
  @TempDir Path dir;

  @Test
  void noticesOverTheRateWaitForTheirTurnWithoutAnAttempt() throws Exception {
    try (Receiver receiver = new Receiver()) {
      HttpChannel http = HttpChannel.builder().allow("127.0.0.0/8").build();
      Herald herald = limitedTo("30/s", http, receiver);
      try {
        List<NoticeRequest> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          batch.add(NoticeRequest.of("limited", "{\"i\":" + i + "}"));
        }
        warmUp(herald, receiver, "limited");
        List<UUID> ids = herald.enqueueAll(batch).stream().map(n -> n.id()).toList();
        await().atMost(Duration.ofSeconds(15)).until(() -> receiver.count() == 60);

        List<Long> at = arrivals(receiver);
        // 30/s and a burst of 3 at dispatch; arrivals may bunch a little more (thread and network jitter)
        assertThat(maxInAnySecond(at)).isLessThanOrEqualTo(36);
        // from the second request on: the first one may wait for the HTTP client's cold start
        // 1.9 s at 30/s; without the limit they would all arrive within a few tens of ms
        assertThat(at.getLast() - at.get(1)).as("60 requests at 30/s").isGreaterThan(1_200L);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
          for (UUID id : ids) {
            var d = herald.operations().find(id).orElseThrow();
            assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
            assertThat(d.attempts()).as("waiting for a turn is not an attempt").hasSize(1);
          }
        });
        EndpointStatus status = http.endpoint(receiver.url("/")).orElseThrow();
        assertThat(status.maxRate()).isEqualTo("30/s");
        assertThat(status.waitingForRate()).isZero();
      } finally {
        herald.close();
      }
    }
  }

  /** Waiting for a rate turn is kept in memory: no row is written while a notice waits. */
  @Test
  void noticesWaitingForTheirTurnRewriteNoRow() throws Exception {
    try (Receiver receiver = new Receiver()) {
      HttpChannel http = HttpChannel.builder().allow("127.0.0.0/8").build();
      Herald herald = limitedTo("5/s", http, receiver);
      try {
        warmUp(herald, receiver, "limited");
        List<NoticeRequest> batch = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
          batch.add(NoticeRequest.of("limited", "{\"i\":" + i + "}"));
        }
        herald.enqueueAll(batch);
        java.util.Map<String, Long> firstSeen = new java.util.HashMap<>();
        java.util.Map<String, Long> lastSeen = new java.util.HashMap<>();
        // Every poll reads the live rows' versions, until all 12 arrived (about 2 s at 5/s).
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() -> {
          try (var c = herald.dataSource().getConnection();
              var rs = c.createStatement().executeQuery("SELECT id, version FROM herald_notice")) {
            while (rs.next()) {
              firstSeen.putIfAbsent(rs.getString(1), rs.getLong(2));
              lastSeen.put(rs.getString(1), rs.getLong(2));
            }
          }
          return receiver.count() == 12;
        });
        assertThat(receiver.count()).isEqualTo(12);
        assertThat(firstSeen).as("rows seen while they waited").hasSizeGreaterThanOrEqualTo(10);
        assertThat(lastSeen).as("each row's version, last seen, is the one first seen").isEqualTo(firstSeen);
      } finally {
        herald.close();
      }
    }
  }

  @Test
  void anEndpointsOwnRateOverridesTheDefinitions() throws Exception {
    try (Receiver receiver = new Receiver()) {
      HttpChannel http = HttpChannel.builder().allow("127.0.0.0/8").maxRate(receiver.url("/"), "10/s").build();
      Herald herald = Herald.builder().h2File(dir.resolve("herald")).channel(http)
          .shutdownTimeout(Duration.ofSeconds(2))
          .define(NoticeDefinition.builder("limited").channel("http", receiver.url("/hook"))
              .option("max-rate", "1000/s").build())
          .build().start();
      try {
        List<NoticeRequest> batch = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
          batch.add(NoticeRequest.of("limited", "{\"i\":" + i + "}"));
        }
        warmUp(herald, receiver, "limited");
        herald.enqueueAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.count() == 15);
        List<Long> at = arrivals(receiver);
        assertThat(maxInAnySecond(at)).isLessThanOrEqualTo(10 + 1 + 1);
        // 1.3 s at 10/s; at the definition's 1000/s they would take 15 ms
        assertThat(at.getLast() - at.get(1)).as("15 requests at 10/s").isGreaterThan(800L);
        assertThat(http.endpoint(receiver.url("/")).orElseThrow().maxRate()).isEqualTo("10/s");
      } finally {
        herald.close();
      }
    }
  }

  /** A started Herald with the definition {@code limited}: webhooks to {@code receiver} at {@code maxRate}. */
  private Herald limitedTo(String maxRate, HttpChannel http, Receiver receiver) {
    return Herald.builder().h2File(dir.resolve("herald")).channel(http)
        .shutdownTimeout(Duration.ofSeconds(2))
        .define(NoticeDefinition.builder("limited").channel("http", receiver.url("/hook"))
            .option("max-rate", maxRate).build())
        .build().start();
  }

  /**
   * One request first, so that the HTTP client's cold start (class loading, the first connection)
   * does not hold early requests back and let them arrive bunched.
   */
  private static void warmUp(Herald herald, Receiver receiver, String definition) throws InterruptedException {
    herald.enqueue(definition, "{\"warm-up\":true}");
    await().atMost(Duration.ofSeconds(10)).until(() -> receiver.count() == 1);
    Thread.sleep(1_100); // a whole second: the warm-up's turn is history
    receiver.requests.clear();
  }

  private static List<Long> arrivals(Receiver receiver) {
    return receiver.requests.stream().map(Receiver.Request::receivedAtMillis).sorted().toList();
  }

  private static int maxInAnySecond(List<Long> at) {
    int max = 0;
    for (int i = 0; i < at.size(); i++) {
      int j = i;
      while (j < at.size() && at.get(j) - at.get(i) < 1000) {
        j++;
      }
      max = Math.max(max, j - i);
    }
    return max;
  }

  @Test
  void badRatesAreRefusedNamingTheOption() {
    HttpChannel http = HttpChannel.builder().build();
    NoticeDefinition.Builder d = NoticeDefinition.builder("x").channel("http", "https://example.com/");
    assertThatThrownBy(() -> http.validate(d.option("max-rate", "fast").build()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("options.max-rate")
        .hasMessageContaining("e.g. 100/s");
    assertThatThrownBy(() -> http.validate(d.option("max-rate", "0/s").build()))
        .hasMessageContaining("whole number >= 1");
    assertThat(Rate.parse("6000/m", "r")).hasToString("6000/m");
    assertThat(Rate.parse("5/10s", "r").intervalNanos()).isEqualTo(2_000_000_000L);
    http.close();
  }
}
