package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A server of its own: tokens made by the command line and by herald.server.bootstrap-admin-token,
 * and back-pressure (503 with Retry-After) when the backlog is over herald.max-backlog.
 */
class SecondServerTest {
  private static final String BOOTSTRAP = "bootstrap-admin-token-for-tests-0123456789";

  private record Run(int exit, String out, String err) {}

  private static Run token(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      int exit = TokenCommand.run(args);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /** The command as users run it: another JVM, through the main class. */
  private static Run tokenInAnotherProcess(String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), HeraldServer.class.getName(), "token"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).start();
      byte[] out = p.getInputStream().readAllBytes();
      byte[] err = p.getErrorStream().readAllBytes();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void tokensFromTheCommandLineAndBootstrapPropertyAndBackPressure() {
    Path dir = TestServer.tempDir();
    Run created = token("create", "--name", "shop", "--role", "client", "--herald.server.data-dir=" + dir);
    assertThat(created.exit()).as(created.err()).isZero();
    Matcher m = Pattern.compile("hrd_[A-Za-z0-9_-]{43}").matcher(created.out());
    assertThat(m.find()).as(created.out()).isTrue();
    String clientToken = m.group();
    assertThat(created.out()).contains("Created client token 'shop'").contains("shown only this once");
    assertThat(token("create", "--name", "x", "--role", "root", "--herald.server.data-dir=" + dir).exit()).isEqualTo(2);

    try (TestServer s = TestServer.start(dir, "--herald.server.bootstrap-admin-token=" + BOOTSTRAP,
        "--herald.max-backlog=2", "--herald.only-definitions=no-such-definition", "--herald.poll-interval=100ms")) {
      assertThat(s.adminToken()).as("no token is generated when one is configured").isNull();
      TestServer.Api admin = s.as(BOOTSTRAP);
      TestServer.Api client = s.as(clientToken);
      assertThat(admin.get("/api/v1/tokens").json().get("items")).extracting(t -> t.get("name").asString())
          .containsExactly("shop", "bootstrap");
      assertThat(client.get("/api/v1/tokens").status()).isEqualTo(403);

      // This node delivers no definition, so due notices pile up: past the limit, intake is refused.
      String item = "{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"payload\":1}";
      assertThat(client.post("/api/v1/notices", "{\"notices\":[" + item + "," + item + "," + item + "]}").status())
          .isEqualTo(201);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        TestServer.Resp r = client.post("/api/v1/notices", "{\"notices\":[" + item + "]}");
        assertThat(r.status()).as(r.toString()).isEqualTo(503);
        assertThat(r.header("retry-after")).isEqualTo("5");
        assertThat(r.error()).isEqualTo("back_pressure");
        assertThat(r.json().get("detail").asString()).contains("nothing was written");
      });

      Run whileRunning = tokenInAnotherProcess("list", "--herald.server.data-dir=" + dir);
      assertThat(whileRunning.exit()).isEqualTo(1);
      assertThat(whileRunning.err()).contains("in use by a running Herald server").contains("POST /api/v1/tokens");
    }
    Run list = token("list", "--herald.server.data-dir=" + dir);
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out()).contains("client").contains("shop").contains("admin").contains("bootstrap");
  }
}
