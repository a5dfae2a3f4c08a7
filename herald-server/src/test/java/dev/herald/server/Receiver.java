package dev.herald.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A real webhook receiver on loopback (the JDK's HttpServer), each exchange on its own virtual thread. */
final class Receiver implements AutoCloseable {
  /** One request as received; header names in lower case. */
  record Request(String path, Map<String, List<String>> headers, byte[] bodyBytes, long receivedAtMillis) {
    String header(String name) {
      List<String> v = headers.get(name);
      return v == null || v.isEmpty() ? null : v.getFirst();
    }

    String body() {
      return new String(bodyBytes, StandardCharsets.UTF_8);
    }
  }

  /** What to answer; {@code delay} is slept before answering. */
  record Response(int status, Map<String, String> headers, String body, Duration delay) {
    static Response ok(String body) {
      return new Response(200, Map.of(), body, Duration.ZERO);
    }

    static Response status(int status) {
      return new Response(status, Map.of(), "", Duration.ZERO);
    }

    Response header(String name, String value) {
      Map<String, String> h = new LinkedHashMap<>(headers);
      h.put(name, value);
      return new Response(status, h, body, delay);
    }

    Response after(Duration d) {
      return new Response(status, headers, body, d);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Response> script = new ConcurrentLinkedQueue<>();
  private volatile Response fallback = Response.ok("");

  Receiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Answers the next requests with these, in order, then with the fallback. */
  Receiver then(Response... responses) {
    script.addAll(List.of(responses));
    return this;
  }

  Receiver otherwise(Response r) {
    this.fallback = r;
    return this;
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  int count() {
    return requests.size();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      requests.add(new Request(ex.getRequestURI().toString(), headers, ex.getRequestBody().readAllBytes(),
          System.currentTimeMillis()));
      Response r = script.poll();
      if (r == null) {
        r = fallback;
      }
      if (!r.delay().isZero()) {
        Thread.sleep(r.delay());
      }
      r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
      byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(r.status(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
