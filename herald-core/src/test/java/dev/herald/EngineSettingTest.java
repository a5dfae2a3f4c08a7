package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.schedule.DurationText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EngineSetting} is the one declaration of each engine setting: the builder's defaults are its
 * defaults, the builder's guide (docs/java.md) has a row for each with that default, and a refused
 * value is named by its setting.
 */
class EngineSettingTest {
  @TempDir Path dir;

  @Test
  void theBuildersDefaultsAreTheDeclaredOnes() {
    try (Herald h = Herald.builder().h2File(dir.resolve("h")).build()) {
      EngineSettings s = h.settings();
      for (EngineSetting e : EngineSetting.values()) {
        Object actual = switch (e) {
          case NODE_ID -> null;
          case POLL_INTERVAL -> s.pollInterval();
          case LOOK_AHEAD -> s.lookAhead();
          case NODE_TIMEOUT -> s.nodeTimeout();
          case CLAIM_BATCH -> s.claimBatch();
          case MAX_HELD -> s.maxHeld();
          case MAX_CONCURRENT_DELIVERIES -> s.maxConcurrentDeliveries();
          case MAX_CONCURRENT_PER_RECEIVER -> s.maxConcurrentPerReceiver();
          case DELIVERY_TIMEOUT -> s.deliveryTimeout();
          case WRITE_BATCH -> s.writeBatch();
          case SHUTDOWN_TIMEOUT -> s.shutdownTimeout();
          case HISTORY_RETENTION -> s.historyRetention();
          case HOUSEKEEPING_INTERVAL -> s.housekeepingInterval();
          case MAX_PAYLOAD_BYTES -> s.maxPayloadBytes();
          case CIRCUIT_FAILURE_THRESHOLD -> s.circuitFailureThreshold();
          case CIRCUIT_OPEN_FOR -> s.circuitOpenFor();
          case CIRCUIT_SLOW_CALL_DURATION -> s.circuitSlowCalls().threshold();
          case CIRCUIT_SLOW_CALL_RATE -> s.circuitSlowCalls().rate();
          case ONLY_DEFINITIONS -> s.definitions();
          case ONLY_SHARDS -> s.shards();
          case MAX_BACKLOG -> s.maxBacklog();
        };
        Object declared = switch (e.kind()) {
          case DURATION, DURATION_OR_OFF -> DurationText.parse(e.defaultText(), e.settingName());
          case COUNT -> Integer.parseInt(e.defaultText());
          case SHARE -> Double.parseDouble(e.defaultText());
          case NAMES, SHARDS -> Set.of(); // "all"
          case NAME -> null; // depends on the host and database
        };
        assertThat(actual).as(e.settingName()).isEqualTo(declared);
      }
      assertThat(s.nodeId()).isEqualTo("embedded");
    }
  }

  @Test
  void theJavaGuideHasARowForEachSettingWithItsDefault() throws Exception {
    String guide = Files.readString(Path.of("../docs/java.md"));
    for (EngineSetting e : EngineSetting.values()) {
      String method = e.path().contains(".") ? e.path().substring(0, e.path().indexOf('.')) : e.settingName();
      String row = guide.lines().filter(l -> l.startsWith("| `" + method + "(")).findFirst().orElse(null);
      assertThat(row).as("docs/java.md row for " + method).isNotNull();
      if (e.kind() != EngineSetting.Kind.NAME) {
        assertThat(row.split("\\|")[2]).as("default of " + e.settingName() + " in docs/java.md").contains(e.defaultText());
      }
    }
  }

  @Test
  void aRefusedValueNamesItsSettingAndSaysWhyInPropertiesWords() {
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("h")).pollInterval(Duration.ZERO).build())
        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
          assertThat(e.setting()).isEqualTo(EngineSetting.POLL_INTERVAL);
          assertThat(e.field()).isEqualTo("pollInterval");
          assertThat(e.reason()).isEqualTo("must be a positive duration, was 0s");
        });
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("h")).circuitSlowCalls(Duration.ofSeconds(1), 2, 20, 10)
        .build()).isInstanceOfSatisfying(InvalidSettingException.class, e -> {
          assertThat(e.setting()).isEqualTo(EngineSetting.CIRCUIT_SLOW_CALL_RATE);
          assertThat(e.field()).isEqualTo("circuitSlowCalls.rate");
        });
    assertThatThrownBy(() -> Herald.builder().h2File(dir.resolve("h")).onlyShards(Set.of(256)).build())
        .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.reason()).isEqualTo("shard 256 is outside 0..255"));
  }
}
