package dev.herald.deploy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A webhook receiver on this host's loopback: records each POST and answers 200. */
final class WebhookReceiver implements AutoCloseable {
  record Delivery(String path, String webhookId, String body) {}

  final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      try (exchange) {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        deliveries.add(new Delivery(exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders().getFirst("webhook-id"), body));
        exchange.sendResponseHeaders(200, -1);
      }
    });
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
