package dev.herald.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A console user over plain HTTP (cookies, CSRF token from the page), for tests without a browser. */
final class ConsoleSession {
  private static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");
  private final TestServer server;
  private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
      .followRedirects(HttpClient.Redirect.NEVER).build();

  ConsoleSession(TestServer server) {
    this.server = server;
  }

  /** Logs in; returns where the login sent the browser. */
  String login(String user, String password) {
    String token = csrf(get("/console/login").body());
    HttpResponse<String> r = post("/console/login", "username=" + enc(user) + "&password=" + enc(password)
        + "&_csrf=" + enc(token));
    return r.headers().firstValue("location").orElse("");
  }

  HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(server.url(path))).GET().build());
  }

  HttpResponse<String> post(String path, String form) {
    return send(HttpRequest.newBuilder(URI.create(server.url(path)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build());
  }

  static String csrf(String page) {
    Matcher m = CSRF.matcher(page);
    if (!m.find()) {
      throw new AssertionError("no CSRF token in the page");
    }
    return m.group(1);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private HttpResponse<String> send(HttpRequest r) {
    try {
      return http.send(r, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
