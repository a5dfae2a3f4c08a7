package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The AOT cache's training run does what a server's first seconds do: a server that creates callbacks
 * through the API and delivers every one to its receiver. If the API or the server changed so that the
 * training stopped short (a refused create, a callback not delivered), images would be built with a
 * cache of a start-up only, or none, without anyone noticing: this fails instead.
 */
class AotTrainingTest {
  @Test
  void theTrainingServerCreatesAndDeliversEveryCallback() throws Exception {
    assertThat(AotTraining.run(1_300, Duration.ofSeconds(60))).isEqualTo(1_300);
  }

  @Test
  void anArgsFileSaysWhetherToUseTheCache() {
    Path cache = Path.of("/app/herald-server.aot");
    assertThat(AotCacheCommand.argsFileText(cache)).isEqualTo("-XX:AOTCache=/app/herald-server.aot\n");
    assertThat(AotCacheCommand.argsFileText(null)).startsWith("#").doesNotContain("-XX");
    assertThat(AotCacheCommand.trainingCommand("java", "/app/herald-server.jar", cache))
        .containsSubsequence("-XX:AOTCacheOutput=/app/herald-server.aot", "-jar", "/app/herald-server.jar", "aot-training");
    assertThat(AotCacheCommand.checkCommand("java", "/app/herald-server.jar", cache))
        .containsSubsequence("-XX:AOTMode=on", "-XX:AOTCache=/app/herald-server.aot", "-jar", "/app/herald-server.jar");
  }
}
