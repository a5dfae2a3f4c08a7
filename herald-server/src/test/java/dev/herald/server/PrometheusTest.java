package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Prometheus scrapes the server: Herald's meters in the text format, without an API token. */
class PrometheusTest extends ServerTest {

  @Test
  void scrapeContainsHeraldsMetersAfterADelivery() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String def = define("prom", "\"channel\":\"http\",\"target\":\"" + receiver.url("/hook") + "\"");
      create(admin, "{\"definition\":\"" + def + "\",\"payload\":{\"n\":1}}");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        TestServer.Resp r = anonymous.get("/actuator/prometheus");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).startsWith("text/plain");
        assertThat(r.text())
            .contains("herald_notices_enqueued_total{definition=\"" + def + "\"} 1.0")
            .contains("herald_notices_delivered_total{definition=\"" + def + "\"} 1.0")
            .contains("herald_delivery_lateness_seconds_bucket{definition=\"" + def + "\"")
            .contains("herald_attempt_duration_seconds_count{definition=\"" + def + "\",outcome=\"delivered\"} 1")
            .contains("herald_notices_live_notices{definition=\"" + def + "\"}")
            .contains("herald_writer_commit_seconds_count")
            .contains("herald_writer_batch_size_outcomes_count")
            .contains("herald_notices_held ")
            .contains("herald_circuits{state=\"open\"}")
            // each attempt is an observation (herald.attempt), timed by the default registry's meter handler
            .containsPattern("herald_attempt_seconds_count\\{[^}]*definition=\"" + def + "\"[^}]*outcome=\"delivered\"");
      });
    }
  }
}
