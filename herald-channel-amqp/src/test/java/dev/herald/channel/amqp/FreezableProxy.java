package dev.herald.channel.amqp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a random loopback port in front of a broker. {@link #freeze()} stops passing the
 * broker's bytes to the client (the connection stays open: a broker that takes messages and never
 * confirms, as seen from the client), {@link #thaw()} passes them again.
 */
final class FreezableProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int upstreamPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean frozen;

  FreezableProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  void freeze() {
    frozen = true;
  }

  void thaw() {
    frozen = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        sockets.add(client);
        sockets.add(upstream);
        Thread.ofVirtual().start(() -> pump(client, upstream, false));
        Thread.ofVirtual().start(() -> pump(upstream, client, true));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromBroker) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        while (fromBroker && frozen) {
          Thread.sleep(10);
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // one side went away
    } finally {
      try {
        from.close();
        to.close();
      } catch (IOException e) {
        // closing
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
