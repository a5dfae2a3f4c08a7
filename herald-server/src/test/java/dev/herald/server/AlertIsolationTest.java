package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.schedule.RetrySchedule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One bad alert destination stops no other alert: it is refused when a definition is saved (400
 * naming it), and one stored anyway (before this check, or by hand) is skipped when its alert goes
 * out, logged and counted, while every other definition's alerts go out.
 */
class AlertIsolationTest {

  @Test
  void badAlertDestinationsAreRefusedAtSaveAndNeverHoldBackOtherAlerts() throws Exception {
    try (Receiver merchant = new Receiver().otherwise(Receiver.Response.status(500));
        Receiver pager = new Receiver();
        TestServer server = TestServer.start(TestServer.tempDir(), "--herald.server.alerts.window=1s",
            "--herald.http.circuit-failure-threshold=1000")) {
      TestServer.Api api = server.as(server.adminToken());
      TestServer.Resp metadata = api.post("/api/v1/definitions", "{\"name\":\"bad-hook\",\"target\":\""
          + merchant.url("/a") + "\",\"options\":{\"alert.webhook\":\"http://169.254.169.254/latest/meta-data\"}}");
      assertThat(metadata.status()).as(metadata.toString()).isEqualTo(400);
      assertThat(metadata.field()).isEqualTo("options.alert.webhook");
      TestServer.Resp notMail = api.post("/api/v1/definitions", "{\"name\":\"bad-mail\",\"target\":\""
          + merchant.url("/a") + "\",\"options\":{\"alert.email\":\"ops at example dot com\"}}");
      assertThat(notMail.status()).as(notMail.toString()).isEqualTo(400);
      assertThat(notMail.field()).isEqualTo("options.alert.email");

      // one stored before the check existed: the API refuses it, so the engine's own store takes it
      Herald herald = server.context.getBean(Herald.class);
      herald.definitions().save(NoticeDefinition.builder("stored-bad").channel("http", merchant.url("/b"))
          .retry(RetrySchedule.parse("1h", "retry")).maxAttempts(1)
          .option("alert.webhook", "http://169.254.169.254/latest/meta-data").build());
      assertThat(api.post("/api/v1/definitions", "{\"name\":\"good\",\"target\":\"" + merchant.url("/c")
          + "\",\"maxAttempts\":1,\"options\":{\"alert.webhook\":\"" + pager.url("/alerts") + "\"}}").status())
          .isEqualTo(201);

      assertThat(api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"stored-bad\",\"payload\":1}]}").status())
          .isEqualTo(201);
      await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/api/v1/notices?definition=stored-bad&status=DEAD")
          .json().get("items").size() == 1);
      assertThat(api.post("/api/v1/notices", "{\"notices\":[{\"definition\":\"good\",\"payload\":2}]}").status())
          .isEqualTo(201);

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(pager.requests)
          .as("the good definition's alert goes out past the bad one").anySatisfy(r ->
              assertThat(r.body()).contains("\"definition\":\"good\"")));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(api.get("/actuator/prometheus").text())
          .contains("herald_alerts_failed_total{definition=\"stored-bad\",destination=\"webhook\"} 1.0"));
      assertThat(pager.requests).noneSatisfy(r -> assertThat(r.body()).contains("stored-bad"));
    }
  }
}
