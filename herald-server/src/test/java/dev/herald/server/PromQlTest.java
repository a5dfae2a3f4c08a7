package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

/**
 * The PromQL of docs/prometheus/herald-rules.yml (delivery rate, failure ratio, lateness p99, backlog
 * age, and the alerts on them), loaded into a real Prometheus (Debian's {@code prometheus}, installed by
 * scripts/install-test-packages.sh) scraping the server every second: promtool accepts the file,
 * every rule evaluates without error, and the recorded figures are what the traffic made them.
 */
class PromQlTest extends ServerTest {
  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  static final Path RULES = Path.of("..", "docs", "prometheus", "herald-rules.yml").toAbsolutePath().normalize();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theDocumentedRulesGiveTheFiguresTheTrafficMade() throws Exception {
    assertThat(PROMETHEUS).as("Debian's prometheus: run scripts/install-test-packages.sh as root").isExecutable();
    Process check = new ProcessBuilder(PROMTOOL.toString(), "check", "rules", RULES.toString())
        .redirectErrorStream(true).start();
    String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.waitFor()).as(checked).isZero();

    try (Receiver ok = new Receiver(); Receiver flaky = new Receiver(); Receiver down = new Receiver()) {
      ok.otherwise(Receiver.Response.ok("ok"));
      for (int i = 0; i < 100; i++) { // a third of the attempts fail
        flaky.then(Receiver.Response.status(500), Receiver.Response.ok("ok"), Receiver.Response.ok("ok"));
      }
      down.otherwise(Receiver.Response.status(500));
      String steady = define("prom-steady", "\"target\":\"" + ok.url("/hook") + "\"");
      String failing = define("prom-flaky", "\"target\":\"" + flaky.url("/hook") + "\",\"retry\":\"100ms\"");
      String stuck = define("prom-stuck", "\"target\":\"" + down.url("/hook") + "\",\"retry\":\"1h\"");
      Path dir = Files.createTempDirectory("herald-prometheus");
      int port = freePort();
      Files.writeString(dir.resolve("prometheus.yml"), """
          global: {scrape_interval: 1s, evaluation_interval: 1s}
          rule_files: ["%s"]
          scrape_configs:
            - job_name: herald
              metrics_path: /actuator/prometheus
              static_configs: [{targets: ["127.0.0.1:%d"]}]
          """.formatted(RULES, server.port));
      Process prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
          "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> get(port, "/-/ready").statusCode() == 200);
        create(admin, "{\"definition\":\"" + stuck + "\",\"payload\":{\"n\":0}}");
        int[] n = {0};
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          // traffic spread over the scrapes, as in production
          create(admin, "{\"definition\":\"" + steady + "\",\"payload\":{\"n\":" + n[0] + "}}");
          create(admin, "{\"definition\":\"" + failing + "\",\"payload\":{\"n\":" + n[0]++ + "}}");
          assertThat(value(port, "herald:deliveries:rate5m{definition=\"" + steady + "\"}")).isPositive();
          assertThat(value(port, "herald:failure_ratio:rate5m{definition=\"" + failing + "\"}")).isBetween(0.01, 1.0);
          assertThat(value(port, "herald:failure_ratio:rate5m{definition=\"" + steady + "\"}")).isZero();
          assertThat(value(port, "herald:lateness_p99:5m{definition=\"" + steady + "\"}")).isBetween(0.0, 5.0);
          assertThat(value(port, "herald:backlog_age:seconds{definition=\"" + stuck + "\"}")).isGreaterThan(2.0);
          assertThat(value(port, "herald:backlog_age:seconds{definition=\"" + steady + "\"}")).isZero();
        });
        assertThat(value(port, "sum(herald_alerts_total{definition=\"" + steady + "\"})"))
            .as("a counter at 0, not absent").isZero();
        assertThat(value(port, "sum(herald_engine_errors_total)")).isZero();

        JsonNode rules = json(get(port, "/api/v1/rules")).path("data").path("groups").get(0).path("rules");
        assertThat(rules.size()).isEqualTo(recordedAndAlerts());
        for (JsonNode r : rules) {
          assertThat(r.path("health").asString()).as(r.path("name").asString() + ": " + r.path("lastError").asString())
              .isEqualTo("ok");
        }
      } finally {
        prometheus.destroy();
        prometheus.waitFor();
      }
    }
  }

  /** How many rules the file holds. */
  @SuppressWarnings("unchecked")
  private static int recordedAndAlerts() throws IOException {
    Map<String, Object> file = new Yaml().load(Files.readString(RULES));
    List<Map<String, Object>> groups = (List<Map<String, Object>>) file.get("groups");
    return ((List<?>) groups.getFirst().get("rules")).size();
  }

  /** The single value of an instant query; fails if it has no or several series. */
  private double value(int port, String promql) throws Exception {
    JsonNode r = json(get(port, "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)));
    JsonNode result = r.path("data").path("result");
    assertThat(result.size()).as(promql + " -> " + r).isEqualTo(1);
    return Double.parseDouble(result.get(0).path("value").get(1).asString());
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return new FailedResponse(e); // not listening yet
    }
  }

  private static JsonNode json(HttpResponse<String> r) {
    return TestServer.JSON.readTree(r.body());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A request that found nothing listening. */
  private record FailedResponse(IOException error) implements HttpResponse<String> {
    public int statusCode() { return -1; }
    public HttpRequest request() { return null; }
    public java.util.Optional<HttpResponse<String>> previousResponse() { return java.util.Optional.empty(); }
    public java.net.http.HttpHeaders headers() { return java.net.http.HttpHeaders.of(Map.of(), (a, b) -> true); }
    public String body() { return "{}"; }
    public java.util.Optional<javax.net.ssl.SSLSession> sslSession() { return java.util.Optional.empty(); }
    public URI uri() { return null; }
    public HttpClient.Version version() { return HttpClient.Version.HTTP_1_1; }
  }
}
