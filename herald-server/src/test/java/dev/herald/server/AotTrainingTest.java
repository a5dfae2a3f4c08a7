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
  /**
   * The training runs where the server runs, production settings around it: here a database the
   * training must not reach, and an intake it must not consume from, as system properties (the
   * environment's variables are cut off the same way, and the child JVM's are filtered too).
   */
  @Test
  void theTrainingServerCreatesAndDeliversEveryCallbackWhateverTheOperatorsSettings() throws Exception {
    java.util.Map<String, String> production = java.util.Map.of(
        "spring.datasource.url", "jdbc:postgresql://127.0.0.1:1/production",
        "herald.kafka.bootstrap-servers", "127.0.0.1:1", "herald.kafka.intakes.audit.topic", "orders.audit",
        "herald.kafka.intakes.audit.definition", "callback",
        "herald.server.bootstrap-admin-token", "hrd_production_token_0123456789abcdef");
    try {
      production.forEach(System::setProperty);
      assertThat(AotTraining.run(1_300, Duration.ofSeconds(60))).isEqualTo(1_300);
    } finally {
      production.keySet().forEach(System::clearProperty);
    }
    assertThat(AotCacheCommand.trainingEnvironment(java.util.Map.of("PATH", "/usr/bin", "HOME", "/root",
        "SPRING_DATASOURCE_URL", "jdbc:postgresql://db/herald", "HERALD_AMQP_INTAKES_PAYMENTS_URI", "amqp://mq",
        "JAVA_TOOL_OPTIONS", "-javaagent:/apm.jar", "SERVER_PORT", "80")))
        .isEqualTo(java.util.Map.of("PATH", "/usr/bin", "HOME", "/root"));
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
