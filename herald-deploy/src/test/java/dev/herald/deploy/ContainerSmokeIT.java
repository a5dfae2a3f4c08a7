package dev.herald.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The image, built on this machine by scripts/build-image.sh (the Containerfile on a base made from
 * Debian packages and a jlink runtime), run with Podman as a platform runs it: read-only root file
 * system, configured by environment variables only, JSON logs, a PostgreSQL database shared the way
 * replicas share it (here the embedded one on this host's loopback), no node id set. It must become
 * ready, take a callback through its API and deliver it to a receiver on this host, and on SIGTERM
 * release what it held and exit 0 well within a grace period.
 *
 * <p>Networking: slirp4netns, so that both directions stay on this host's loopback: {@code -p
 * 127.0.0.1::8080} publishes the server, and the container reaches the host's 127.0.0.1 as 10.0.2.2.
 */
class ContainerSmokeIT {
  static final Path REPOSITORY = Path.of(System.getProperty("herald.repository", "..")).toAbsolutePath().normalize();
  static final String HOST_FROM_CONTAINER = "10.0.2.2";
  static final String ADMIN_TOKEN = "hrd_container-smoke-test-admin-token-0123456789";
  static final String HOSTNAME = "herald-smoke-0";
  /** Kubernetes' default terminationGracePeriodSeconds; the node must be gone well before. */
  static final Duration GRACE_PERIOD = Duration.ofSeconds(30);
  static final JsonMapper JSON = JsonMapper.shared();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void theImageServesDeliversAndStopsCleanlyOnSigterm() throws Exception {
    Podman.require();
    String run = UUID.randomUUID().toString().substring(0, 8);
    String image = "localhost/herald-server:smoke-" + run; // its own tag: parallel runs do not mix
    try {
      smokeTest(image, "herald-smoke-" + run);
    } finally {
      Podman.podman(Duration.ofMinutes(1), "rmi", "--force", image);
    }
  }

  private void smokeTest(String image, String name) throws Exception {
    long buildStart = System.nanoTime();
    Podman.Result build = Podman.exec(List.of("bash", "scripts/build-image.sh", image),
        Map.of("JAVA_HOME", System.getProperty("java.home")), REPOSITORY, Duration.ofMinutes(10));
    System.out.printf("image build: %d s%n%s%s", (System.nanoTime() - buildStart) / 1_000_000_000, build.out(), build.err());
    build.ok();
    // the AOT cache made at the build, named in /app/jvm.args (which the entry point reads); AOTMode=on
    // fails if the cache named there does not map
    List<String> aot = new ArrayList<>(List.of("run", "--rm", "--entrypoint", "java"));
    aot.addAll(Podman.runtimeOptions());
    aot.addAll(List.of(image, "@/app/jvm.args", "-XX:AOTMode=on", "-XX:+PrintFlagsFinal", "-jar", "/app/herald-server.jar",
        "aot-check")); // with the server's class path: a cache maps only with the class path it was made with
    Podman.Result cache = Podman.podman(Duration.ofMinutes(1), aot.toArray(String[]::new));
    assertThat(cache.exit()).as("the image's AOT cache maps: " + cache.err() + cache.out()).isZero();
    assertThat(cache.out()).containsPattern("ccstr AOTCache\\s+= /app/herald-server.aot ");
    assertThat(Podman.podman(Duration.ofSeconds(30), "image", "inspect", "--format", "{{json .Config.Entrypoint}}", image)
        .ok().out()).contains("@/app/jvm.args");

    try (EmbeddedPostgres postgres = EmbeddedPostgres.start(); WebhookReceiver receiver = new WebhookReceiver()) {
      List<String> run = new ArrayList<>(List.of("run", "--detach", "--name", name, "--hostname", HOSTNAME));
      run.addAll(Podman.runtimeOptions());
      run.addAll(List.of("--network", "slirp4netns:allow_host_loopback=true", "--publish", "127.0.0.1::8080",
          "--read-only", "--tmpfs", "/tmp", "--memory", "1g", // as a platform runs it
          "--env", "SPRING_DATASOURCE_URL=jdbc:postgresql://" + HOST_FROM_CONTAINER + ":" + postgres.getPort() + "/postgres",
          "--env", "SPRING_DATASOURCE_USERNAME=postgres",
          "--env", "HERALD_SERVER_BOOTSTRAP_ADMIN_TOKEN=" + ADMIN_TOKEN,
          "--env", "HERALD_SERVER_CONSOLE_ADMIN_PASSWORD=smoke-console-password",
          "--env", "HERALD_HTTP_ALLOW=" + HOST_FROM_CONTAINER,
          // notices due within a minute are held in the node's timer: one is held when SIGTERM comes
          "--env", "HERALD_LOOK_AHEAD=60s",
          "--env", "LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs",
          image));
      Podman.podman(Duration.ofMinutes(1), run.toArray(String[]::new)).ok();
      try {
        String published = Podman.podman(Duration.ofSeconds(30), "port", name, "8080/tcp").ok().out().strip();
        String base = "http://" + published;
        String nodeId = HOSTNAME + "-1"; // HOSTNAME and the process id, 1 in the container

        // readiness: DOWN (or no answer) until the migrations ran and the engine started
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250))
            .until(() -> status(base + "/actuator/health/readiness") == 200);
        List<String> logsWhenReady = jsonLogMessages(name);
        assertThat(logsWhenReady).anyMatch(m -> m.startsWith("Herald schema: applying V1__initial_schema.sql"))
            .anyMatch(m -> m.startsWith("Herald node " + nodeId + " started"));
        assertThat(status(base + "/actuator/health/liveness")).isEqualTo(200);
        // the heap follows the container's memory limit (1 GiB, 75 %), not the host's memory
        assertThat(heapMaxBytes(base)).isBetween(512L << 20, 768L << 20);
        assertThat(Podman.podman(Duration.ofSeconds(30), "healthcheck", "run", name).exit())
            .as("the image's HEALTHCHECK").isZero();

        // a callback created through the API reaches the receiver on this host
        JsonNode created = post(base + "/api/v1/notices", """
            {"notices": [{"callbackUrl": "http://%s:%d/orders/42/paid", "payload": {"order": 42}}]}"""
            .formatted(HOST_FROM_CONTAINER, receiver.port()));
        String delivered = created.get("ids").get(0).asString();
        await().atMost(Duration.ofSeconds(20)).until(() -> !receiver.deliveries.isEmpty());
        assertThat(receiver.deliveries).singleElement().satisfies(d -> {
          assertThat(d.path()).isEqualTo("/orders/42/paid");
          assertThat(d.webhookId()).isEqualTo(delivered);
          assertThat(d.body()).isEqualTo("{\"order\":42}");
        });

        // one due in 45 s: held in the node's timer (IN_FLIGHT) under its node id
        String held = post(base + "/api/v1/notices", """
            {"notices": [{"callbackUrl": "http://%s:%d/later", "payload": {"later": true}, "delay": "45s"}]}"""
            .formatted(HOST_FROM_CONTAINER, receiver.port())).get("ids").get(0).asString();
        DataSource db = postgres.getPostgresDatabase();
        await().atMost(Duration.ofSeconds(10)).until(() -> "IN_FLIGHT".equals(column(db, held, "status")));
        assertThat(column(db, held, "owner")).startsWith(nodeId + "#");
        assertThat(nodes(db)).containsExactly(nodeId);

        // SIGTERM: graceful stop, held notices released, exit 0 within the grace period
        long stopStart = System.nanoTime();
        Podman.podman(Duration.ofSeconds(30), "kill", "--signal", "TERM", name).ok();
        String exit = Podman.podman(GRACE_PERIOD, "wait", name).ok().out().strip();
        Duration stopped = Duration.ofNanos(System.nanoTime() - stopStart);
        System.out.println("stopped in " + stopped.toMillis() + " ms after SIGTERM, exit " + exit);
        assertThat(exit).as("exit status").isEqualTo("0");
        assertThat(stopped).isLessThan(GRACE_PERIOD.dividedBy(2));
        assertThat(column(db, held, "status")).isEqualTo("PENDING");
        assertThat(column(db, held, "owner")).isNull();
        assertThat(nodes(db)).as("the node signed off").isEmpty();

        Podman.Result logs = Podman.podman(Duration.ofSeconds(30), "logs", name).ok();
        List<String> messages = jsonLogMessages(name);
        assertThat(messages).contains("Herald node " + nodeId + " stopped; released 1 unstarted notice(s)");
        assertThat(logs.err()).as("nothing but JSON lines on stdout, nothing on stderr").isEmpty();
      } finally {
        Podman.Result logs = Podman.podman(Duration.ofSeconds(30), "logs", name);
        System.out.println("container log:\n" + logs.out() + logs.err());
        Podman.podman(Duration.ofMinutes(1), "rm", "--force", name);
      }
    }
  }

  /** Every stdout line of the container's log parsed as a JSON object; their messages. */
  private static List<String> jsonLogMessages(String container) {
    List<String> messages = new ArrayList<>();
    for (String line : Podman.podman(Duration.ofSeconds(30), "logs", container).ok().out().split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      JsonNode entry = JSON.readTree(line);
      assertThat(entry.isObject()).as(line).isTrue();
      assertThat(entry.get("@timestamp")).as(line).isNotNull();
      messages.add(entry.get("message").asString());
    }
    return messages;
  }

  /** The sum of the heap pools' maximum sizes the server reports to Prometheus. */
  private long heapMaxBytes(String base) throws IOException, InterruptedException {
    String scrape = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    long sum = 0;
    for (String line : scrape.split("\n")) {
      if (line.startsWith("jvm_memory_max_bytes{") && line.contains("area=\"heap\"")) {
        sum += Math.max(0, (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return sum;
  }

  private int status(String url) throws IOException, InterruptedException {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) { // not listening yet: refused, or closed by slirp4netns's port forwarder
      return -1;
    }
  }

  private JsonNode post(String url, String json) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body());
  }

  private static String column(DataSource db, String noticeId, String column) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM herald_notice WHERE id = ?")) {
      ps.setObject(1, UUID.fromString(noticeId));
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("notice " + noticeId + " is live").isTrue();
        return rs.getString(1);
      }
    }
  }

  private static List<String> nodes(DataSource db) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT node_id FROM herald_node")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }
}
