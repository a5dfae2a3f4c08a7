package dev.herald.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A stock nginx (Debian package {@code nginx-light}) on 127.0.0.1 with a config of its own in a temp
 * dir: one worker, nginx's default keep-alive ({@code keepalive_timeout 75s}, {@code keepalive_requests
 * 1000}: every connection is closed after 1,000 requests, as real receivers do), and {@code return 200
 * "ok"} for every request. The receiver of issue 15's webhook cases.
 */
final class Nginx implements AutoCloseable {
  static final String BINARY = "/usr/sbin/nginx";
  static final String INSTALL = "apt-get update && apt-get install -y nginx-light";

  private final Process process;
  private final Path dir;
  final int port;

  private Nginx(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /** Starts nginx, or says how to install it and returns empty when it is missing. */
  static Optional<Nginx> start(Path tmp) {
    return start(tmp, false);
  }

  /** With {@code log}, an access log of {@code <$msec> <webhook-id>} lines, to measure lateness at the receiver. */
  static Optional<Nginx> start(Path tmp, boolean log) {
    if (!Files.isExecutable(Path.of(BINARY))) {
      System.out.println("  nginx not found at " + BINARY + ": case skipped. Install it with: " + INSTALL);
      return Optional.empty();
    }
    try {
      Path dir = Files.createTempDirectory(tmp, "nginx");
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      String conf = """
          worker_processes 1;
          daemon off;
          pid %1$s/nginx.pid;
          error_log %1$s/error.log warn;
          events { worker_connections 4096; }
          http {
            log_format hook '$msec $http_webhook_id';
            %3$s
            client_body_temp_path %1$s/body;
            proxy_temp_path %1$s/proxy;
            fastcgi_temp_path %1$s/fastcgi;
            uwsgi_temp_path %1$s/uwsgi;
            scgi_temp_path %1$s/scgi;
            server {
              listen 127.0.0.1:%2$d;
              location / { return 200 "ok"; }
            }
          }
          """.formatted(dir, port, log ? "access_log " + dir + "/access.log hook;" : "access_log off;");
      Path file = dir.resolve("nginx.conf");
      Files.writeString(file, conf);
      Process p = new ProcessBuilder(BINARY, "-c", file.toString(), "-p", dir.toString())
          .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
      Nginx nginx = new Nginx(p, dir, port);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < deadline) {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 200);
          return Optional.of(nginx);
        } catch (IOException notYet) {
          if (!p.isAlive()) {
            throw new BenchException("nginx exited: " + Files.readString(dir.resolve("stdout.log")));
          }
          Thread.sleep(50);
        }
      }
      nginx.close();
      throw new BenchException("nginx did not listen on " + port + " within 10 s");
    } catch (IOException e) {
      throw new BenchException("cannot start nginx: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted", e);
    }
  }

  /** The access log (with {@code log}). */
  Path accessLog() {
    return dir.resolve("access.log");
  }

  String url() {
    return "http://127.0.0.1:" + port + "/hook";
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
