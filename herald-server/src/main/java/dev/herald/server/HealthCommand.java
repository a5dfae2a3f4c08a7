package dev.herald.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@code java -jar herald-server.jar health [URL]}: asks the server on this host whether it is ready
 * and exits 0 if it answers 200, 1 otherwise. The image's {@code HEALTHCHECK} runs it, so the image
 * needs no shell or curl. The default URL is the readiness group on {@code 127.0.0.1}, at {@code
 * MANAGEMENT_SERVER_PORT} or else {@code SERVER_PORT} (8080): the environment the server reads too.
 * Starts no Spring context.
 */
final class HealthCommand {
  static final int TIMEOUT_MILLIS = 3_000;

  private HealthCommand() {}

  static int run(String[] args, Map<String, String> env, PrintStream out) {
    String url = args.length > 0 ? args[0] : defaultUrl(env);
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout(TIMEOUT_MILLIS);
      c.setReadTimeout(TIMEOUT_MILLIS);
      int status = c.getResponseCode();
      try (InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
        String text = body == null ? "" : new String(body.readNBytes(500), StandardCharsets.UTF_8);
        out.println(url + " -> " + status + " " + text);
      }
      return status == 200 ? 0 : 1;
    } catch (IOException | IllegalArgumentException e) {
      out.println(url + " -> " + e);
      return 1;
    }
  }

  static String defaultUrl(Map<String, String> env) {
    String port = env.getOrDefault("MANAGEMENT_SERVER_PORT", env.getOrDefault("SERVER_PORT", "8080"));
    return "http://127.0.0.1:" + port.strip() + "/actuator/health/readiness";
  }
}
