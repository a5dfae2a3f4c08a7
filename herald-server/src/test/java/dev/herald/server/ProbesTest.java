package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Kubernetes-style probes on any platform: liveness and readiness groups, readiness DOWN while the
 * engine is not running and from shutdown on; and the {@code health} command the image's HEALTHCHECK
 * runs.
 */
class ProbesTest {

  @Test
  void aStartedServerIsLiveAndReadyAndItsHealthCommandSaysSo() {
    TestServer s = TestServer.shared();
    TestServer.Api anonymous = s.as(null);
    assertThat(anonymous.get("/actuator/health/liveness").text()).isEqualTo("{\"status\":\"UP\"}");
    assertThat(anonymous.get("/actuator/health/readiness").text()).isEqualTo("{\"status\":\"UP\"}");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit = HealthCommand.run(new String[0], Map.of("SERVER_PORT", String.valueOf(s.port)), print(out));
    assertThat(exit).as(out.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith("http://127.0.0.1:" + s.port + "/actuator/health/readiness -> 200");
  }

  @Test
  void aServerWhoseEngineDoesNotRunIsLiveButNotReady() {
    try (TestServer s = TestServer.start(TestServer.tempDir(), "--herald.auto-start=false")) {
      TestServer.Api anonymous = s.as(null);
      assertThat(anonymous.get("/actuator/health/liveness").status()).isEqualTo(200);
      TestServer.Resp readiness = anonymous.get("/actuator/health/readiness");
      assertThat(readiness.status()).isEqualTo(503);
      assertThat(readiness.text()).isEqualTo("{\"status\":\"DOWN\"}");
      // Spring's own readiness state says ready: only the engine check keeps traffic away
      assertThat(s.context.getBean(ApplicationAvailability.class).getReadinessState())
          .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(HealthCommand.run(new String[] {s.url("/actuator/health/readiness")}, Map.of(), print(out)))
          .isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("-> 503 {\"status\":\"DOWN\"}");
    }
  }

  @Test
  void readinessIsOutOfServiceFromTheStartOfShutdownWhileTheEngineStillRuns() {
    TestServer s = TestServer.start(TestServer.tempDir());
    AtomicReference<String> atClose = new AtomicReference<>();
    s.context.addApplicationListener(event -> {
      if (event instanceof ContextClosedEvent) {
        HealthEndpoint health = s.context.getBean(HealthEndpoint.class);
        HealthDescriptor readiness = health.healthForPath("readiness");
        HealthDescriptor engine = health.healthForPath("heraldEngine");
        atClose.set(readiness.getStatus() + " engine " + engine.getStatus());
      }
    });
    s.close();
    assertThat(atClose.get()).isEqualTo("OUT_OF_SERVICE engine UP");
  }

  @Test
  void theHealthCommandFailsWhenNothingAnswers() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(HealthCommand.run(new String[0], Map.of("SERVER_PORT", String.valueOf(port)), print(out))).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("ConnectException");
    assertThat(HealthCommand.defaultUrl(Map.of("SERVER_PORT", "9090", "MANAGEMENT_SERVER_PORT", "9091")))
        .isEqualTo("http://127.0.0.1:9091/actuator/health/readiness");
    assertThat(HealthCommand.defaultUrl(Map.of())).isEqualTo("http://127.0.0.1:8080/actuator/health/readiness");
  }

  private static PrintStream print(ByteArrayOutputStream out) {
    return new PrintStream(out, true, StandardCharsets.UTF_8);
  }
}
