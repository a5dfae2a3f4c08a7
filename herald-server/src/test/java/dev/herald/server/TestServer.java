package dev.herald.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The server, started for real (embedded Tomcat on a random port, embedded H2 in a temporary folder)
 * and called over HTTP. Loopback receivers are allowed explicitly: {@code herald.http.allow=127.0.0.1}.
 */
final class TestServer implements AutoCloseable {
  static final JsonMapper JSON = JsonMapper.shared();
  private static TestServer shared;
  /** The shared server's key for secrets at rest (32 bytes in base64), so that tests can see values sealed. */
  static final String SECRET_KEY = "q2Ydz1fXoHt4yQy0xBq4m0oQh0a4mAyVYb0Cq8qV2l8=";

  final ConfigurableApplicationContext context;
  final int port;
  final Path dataDir;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private TestServer(ConfigurableApplicationContext context, Path dataDir) {
    this.context = context;
    this.dataDir = dataDir;
    this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  /**
   * The server most tests share: a fresh data folder, so its first start creates the initial admin
   * token ({@link #adminToken()}). Closed when the test JVM exits.
   */
  static synchronized TestServer shared() {
    if (shared == null) {
      shared = start(tempDir(), "--herald.max-payload-bytes=4096", "--herald.server.secret-key=" + SECRET_KEY);
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  static Path tempDir() {
    try {
      return Files.createTempDirectory("herald-server-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static TestServer start(Path dataDir, String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "--server.port=0",
        "--herald.server.data-dir=" + dataDir,
        "--herald.http.allow=127.0.0.1",
        "--herald.server.max-request-size=256KB",
        "--herald.shutdown-timeout=2s",
        "--logging.level.dev.herald.server.requests=DEBUG"));
    for (String e : extra) { // an extra argument replaces the default of the same key
      String key = e.contains("=") ? e.substring(0, e.indexOf('=') + 1) : e;
      args.removeIf(a -> a.startsWith(key));
      args.add(e);
    }
    return new TestServer(HeraldServer.builder().run(args.toArray(String[]::new)), dataDir);
  }

  String adminToken() {
    return context.getBean(ServerBootstrap.class).initialToken();
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  Api as(String token) {
    return new Api(token);
  }

  @Override
  public void close() {
    context.close();
  }

  /** An answer: status, headers, and the body as JSON (null if empty or not JSON). */
  record Resp(int status, HttpHeaders headers, String text, JsonNode json) {
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    /** The problem's field, for error answers. */
    String field() {
      return json.path("field").asString(null);
    }

    String error() {
      return json.path("error").asString(null);
    }

    @Override
    public String toString() {
      return status + " " + text;
    }
  }

  /** Calls with one token (or none). */
  final class Api {
    private final String token;

    Api(String token) {
      this.token = token;
    }

    Resp get(String path) {
      return send("GET", path, null, null);
    }

    Resp post(String path, String json) {
      return send("POST", path, json, "application/json");
    }

    Resp post(String path) {
      return send("POST", path, null, null);
    }

    /** A POST with one more request header. */
    Resp post(String path, String json, String header, String value) {
      return send("POST", path, json, "application/json", java.util.Map.of(header, value));
    }

    Resp patch(String path, String json) {
      return send("PATCH", path, json, "application/json");
    }

    Resp put(String path, String json) {
      return send("PUT", path, json, "application/json");
    }

    Resp delete(String path) {
      return send("DELETE", path, null, null);
    }

    Resp send(String method, String path, String body, String contentType) {
      return send(method, path, body, contentType, java.util.Map.of());
    }

    Resp send(String method, String path, String body, String contentType, java.util.Map<String, String> headers) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      if (contentType != null) {
        b.header("Content-Type", contentType);
      }
      headers.forEach(b::header);
      if (token != null) {
        b.header("Authorization", token.contains(" ") ? token : "Bearer " + token);
      }
      try {
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        JsonNode json = null;
        String type = r.headers().firstValue("content-type").orElse("");
        if (!r.body().isEmpty() && type.contains("json")) {
          json = JSON.readTree(r.body());
        }
        return new Resp(r.statusCode(), r.headers(), r.body(), json);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
