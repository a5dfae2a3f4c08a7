package dev.herald.channel.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw-socket HTTP/1.1 receiver on loopback that answers each connection's first {@code served}
 * requests with {@code 200} and keep-alive, then closes the connection when the next request arrives
 * without answering it: what a server does whose idle timeout fires just as a pooled connection is
 * used again (nginx, Python's http.server, load balancers). With {@code served = 0} it never answers.
 */
final class ClosingReceiver implements AutoCloseable {
  private final ServerSocket server;
  private final int served;
  /** The bodies the receiver's application answered, in order. */
  final List<String> answered = new CopyOnWriteArrayList<>();
  /** Requests that arrived and were dropped by closing the connection. */
  final AtomicInteger dropped = new AtomicInteger();
  final AtomicInteger connections = new AtomicInteger();

  ClosingReceiver(int served) throws IOException {
    this.served = served;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("closing-receiver").start(this::accept);
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getLocalPort() + path;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        connections.incrementAndGet();
        Thread.ofVirtual().start(() -> serve(s));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      for (int n = 0; ; n++) {
        String body = readRequest(in);
        if (body == null) {
          return; // the client closed it
        }
        if (n >= served) {
          dropped.incrementAndGet();
          return; // closes without a byte of a response
        }
        answered.add(body);
        out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  /** The body of the next request, or null at the end of the stream. */
  private static String readRequest(InputStream in) throws IOException {
    int length = 0;
    boolean any = false;
    StringBuilder line = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        return null;
      }
      any = true;
      if (c == '\n') {
        String l = line.toString().strip();
        line.setLength(0);
        if (l.isEmpty()) {
          break;
        }
        if (l.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(l.substring("content-length:".length()).strip());
        }
      } else {
        line.append((char) c);
      }
    }
    byte[] body = in.readNBytes(length);
    return any ? new String(body, StandardCharsets.UTF_8) : null;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
