package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One client with big, hostile bodies against a server in its own JVM with a small heap, started
 * with the flags of the launcher (bin/herald-server): bodies of 16 MB whose payload is {@code
 * [{},{},...]} were read whole and parsed into a tree (~40 times their size) before the payload limit
 * was checked, and an OutOfMemoryError left the node broken. Read as a stream, each is refused with
 * 400 (or 503 while too many bytes are read at once), and the server answers as before.
 */
class HostileInputTest {
  private static final String HEAP = "-Xmx160m";

  @Test
  void bigHostileBodiesAreRefusedWithinBoundedMemoryAndTheServerLivesOn() throws Exception {
    Path data = TestServer.tempDir();
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        HEAP, "-XX:TieredStopAtLevel=1"));
    command.addAll(launcherFlags());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), HeraldServer.class.getName(),
        "--server.port=" + port, "--herald.server.data-dir=" + data, "--herald.shutdown-timeout=2s",
        "--logging.level.root=WARN"));
    Process node = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(data.resolve("node.log").toFile()).start();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String base = "http://127.0.0.1:" + port;
    try {
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() ->
          http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
      String token = initialToken(data);

      byte[] hostile = hostileBody(16 * 1024 * 1024 - 1024);
      List<Callable<Integer>> clients = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        clients.add(() -> http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/notices"))
            .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(hostile)).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
      }
      try (ExecutorService pool = Executors.newFixedThreadPool(6)) {
        for (int round = 0; round < 3; round++) {
          for (Future<Integer> f : pool.invokeAll(clients)) {
            assertThat(f.get()).as("a hostile body is refused, not failed on").isIn(400, 503);
          }
        }
      }
      assertThat(node.isAlive()).as("the node lives (see " + data.resolve("node.log") + ")").isTrue();

      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/notices"))
          .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"notices\":[{\"callbackUrl\":\"https://example.com/x\","
              + "\"payload\":{\"n\":1.10},\"delay\":\"1h\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String id = TestServer.JSON.readTree(created.body()).get("ids").get(0).asString();
      String back = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/notices/" + id))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(back).as("payloads kept exactly as written").contains("\"payload\":{\"n\":1.10}");
    } finally {
      node.destroy();
      node.waitFor();
    }
  }

  /** The JVM flags bin/herald-server gives every server. */
  static List<String> launcherFlags() throws IOException {
    String script = Files.readString(Path.of("bin", "herald-server"));
    Matcher m = Pattern.compile("(?m)^DEFAULT_JVM_OPTS=\"([^\"]*)\"").matcher(script);
    assertThat(m.find()).as("bin/herald-server sets DEFAULT_JVM_OPTS").isTrue();
    List<String> flags = Arrays.asList(m.group(1).strip().split("\\s+"));
    assertThat(flags).contains("-XX:+ExitOnOutOfMemoryError");
    return flags;
  }

  /** The first start's admin token, from its file (readable by its owner only), not from the log. */
  static String initialToken(Path data) throws IOException {
    Path file = data.resolve(FirstStartSecrets.FILE);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    Matcher m = Pattern.compile("hrd_[A-Za-z0-9_-]{43}").matcher(Files.readString(file));
    assertThat(m.find()).isTrue();
    return m.group();
  }

  /** {@code {"notices":[{"callbackUrl":...,"payload":[{},{},...]}]}} of about {@code size} bytes. */
  static byte[] hostileBody(int size) {
    StringBuilder b = new StringBuilder(size + 64);
    b.append("{\"notices\":[{\"callbackUrl\":\"https://example.com/x\",\"payload\":[{}");
    while (b.length() < size) {
      b.append(",{}");
    }
    return b.append("]}]}").toString().getBytes(StandardCharsets.US_ASCII);
  }
}
