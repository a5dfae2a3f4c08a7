package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Slowloris: more connections than the server takes, each trickling a header line now and then. Each
 * read progresses, so Tomcat's connection timeout never fires; the header timeout closes them, and
 * the server answers again.
 */
class SlowlorisTest {
  private static final int MAX_CONNECTIONS = 40;

  @Test
  void connectionsTricklingHeadersAreClosedAndTheServerAnswersAgain() throws Exception {
    try (TestServer server = TestServer.start(TestServer.tempDir(), "--server.tomcat.max-connections=" + MAX_CONNECTIONS,
        "--server.tomcat.accept-count=200", "--herald.server.header-timeout=2s", "--spring.lifecycle.timeout-per-shutdown-phase=2s");
        ScheduledExecutorService trickle = Executors.newScheduledThreadPool(1)) {
      List<Socket> sockets = new ArrayList<>();
      for (int i = 0; i < MAX_CONNECTIONS + 20; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port), 2000);
        s.getOutputStream().write("GET /actuator/health HTTP/1.1\r\nHost: herald\r\n".getBytes(StandardCharsets.US_ASCII));
        sockets.add(s);
      }
      // a header line per socket every 300 ms: every read progresses, the headers never end
      trickle.scheduleAtFixedRate(() -> {
        for (Socket s : sockets) {
          try {
            OutputStream out = s.getOutputStream();
            out.write("X-Slow: 1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException closedByTheServer) {
            // what the test waits for
          }
        }
      }, 300, 300, TimeUnit.MILLISECONDS);

      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().untilAsserted(() -> {
        HttpResponse<String> health = client.send(HttpRequest.newBuilder(URI.create(server.url("/actuator/health")))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
      });
      // the tricklers the server had taken were closed (the rest wait in the backlog and are taken, then closed)
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
          assertThat(sockets.stream().filter(SlowlorisTest::closedByServer).count()).isGreaterThanOrEqualTo(MAX_CONNECTIONS));
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /** Whether the server closed the connection (it sends nothing else to a request whose headers never end). */
  private static boolean closedByServer(Socket s) {
    try {
      s.setSoTimeout(50);
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      int n;
      do {
        n = in.read(buf);
      } while (n > 0);
      return n < 0;
    } catch (java.net.SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
