package dev.herald.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay to a database server whose link can be cut: while cut, it accepts connections but
 * moves no byte either way (like a network partition: packets wait to be retransmitted, nothing is
 * refused or reset); when healed, held bytes flow on.
 */
final class CuttableProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean cut;
  private volatile boolean closed;

  CuttableProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("proxy-accept").start(this::acceptLoop);
  }

  int port() {
    return server.getLocalPort();
  }

  void cut() {
    cut = true;
  }

  void heal() {
    synchronized (gate) {
      cut = false;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        sockets.add(client);
        Thread.ofPlatform().daemon().name("proxy-connect").start(() -> relay(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void relay(Socket client) {
    try {
      awaitLink();
      Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
      sockets.add(upstream);
      Thread.ofPlatform().daemon().name("proxy-up").start(() -> pump(client, upstream));
      pump(upstream, client);
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        awaitLink();
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // one side closed: close the other
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void awaitLink() throws InterruptedException {
    synchronized (gate) {
      while (cut && !closed) {
        gate.wait(100);
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    heal();
    server.close();
    sockets.forEach(CuttableProxy::closeQuietly);
  }
}
