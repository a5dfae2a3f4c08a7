package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The node id a replica gets without a setting: its container's or pod's host name. */
class NodeIdDefaultTest {

  @Test
  void onAServerDatabaseTheNodeIsNamedAfterHostnameAndPid() {
    StandardEnvironment env = environment(Map.of("spring.datasource.url", "jdbc:postgresql://db/herald"));
    NodeIdDefault.apply(env, "herald-7d9c5b8f4-x2kqp", 1);
    assertThat(env.getProperty("herald.node-id")).isEqualTo("herald-7d9c5b8f4-x2kqp-1");
  }

  @Test
  void anExplicitNodeIdWins() {
    StandardEnvironment env = environment(Map.of("spring.datasource.url", "jdbc:postgresql://db/herald",
        "herald.node-id", "eu-1"));
    NodeIdDefault.apply(env, "herald-0", 1);
    assertThat(env.getProperty("herald.node-id")).isEqualTo("eu-1");
  }

  @Test
  void theEmbeddedDatabaseKeepsItsFixedIdAndNoHostnameLeavesItToTheCore() {
    StandardEnvironment embedded = environment(Map.of());
    EmbeddedDatabaseDefaults.apply(embedded);
    NodeIdDefault.apply(embedded, "herald-0", 1);
    assertThat(embedded.getProperty("herald.node-id")).isEqualTo("embedded");
    assertThat(embedded.getProperty("herald.node-timeout")).as("no other node can open the file").isEqualTo("10s");

    StandardEnvironment own = environment(Map.of("herald.node-timeout", "3s"));
    EmbeddedDatabaseDefaults.apply(own);
    assertThat(own.getProperty("herald.node-timeout")).isEqualTo("3s");
    StandardEnvironment server = environment(Map.of("spring.datasource.url", "jdbc:postgresql://db/herald"));
    EmbeddedDatabaseDefaults.apply(server);
    assertThat(server.getProperty("herald.node-timeout")).as("the core's default on a shared database").isNull();

    StandardEnvironment noHostname = environment(Map.of("spring.datasource.url", "jdbc:postgresql://db/herald"));
    NodeIdDefault.apply(noHostname, " ", 1);
    assertThat(noHostname.getProperty("herald.node-id")).isNull();
  }

  private static StandardEnvironment environment(Map<String, Object> properties) {
    StandardEnvironment env = new StandardEnvironment();
    env.getPropertySources().addFirst(new MapPropertySource("test", properties));
    return env;
  }
}
