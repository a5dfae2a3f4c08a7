package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.server.alerts.AlertProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Secrets: the first start's ones go to a file only its owner reads, not the log; signing secrets
 * are sealed at rest under a key from the environment, sealed again when the key is rotated, and
 * still sign; sealed configuration values are opened; URLs that carry credentials are shown masked
 * to those who are not admins.
 */
class SecretsTest extends ServerTest {

  @Test
  void signingSecretsAreSealedAtRestAndSealedAgainWhenTheKeyRotates() throws Exception {
    Path data = TestServer.tempDir();
    String secret = WebhookDeliveryTest.newSecret();
    String k1 = SecretBox.newKey();
    String k2 = SecretBox.newKey();
    try (Receiver merchant = new Receiver()) {
      // the console log, as the server writes it (Spring Boot resets Logback's appenders at each start)
      java.io.PrintStream out = System.out;
      java.io.ByteArrayOutputStream copy = new java.io.ByteArrayOutputStream();
      System.setOut(new java.io.PrintStream(new java.io.OutputStream() {
        @Override
        public void write(int b) {
          out.write(b);
          copy.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          out.write(b, off, len);
          copy.write(b, off, len);
        }
      }, true));
      String token;
      // INFO, where the start-up report says where the secrets are (another test's context may have left WARN)
      try (TestServer plain = TestServer.start(data, "--logging.level.root=INFO")) {
        token = plain.adminToken();
        assertThat(plain.as(token).post("/api/v1/definitions", "{\"name\":\"signed\",\"target\":\""
            + merchant.url("/in") + "\",\"options\":{\"secrets\":\"" + secret + "\"}}").status()).isEqualTo(201);
        assertThat(storedSecrets(plain)).as("no key yet: stored as given").contains(secret);
      } finally {
        System.setOut(out);
      }
      String log = copy.toString(java.nio.charset.StandardCharsets.UTF_8);
      String file = Files.readString(data.resolve(FirstStartSecrets.FILE));
      Matcher password = Pattern.compile("console user admin, password \\([^)]*\\): (\\S+)").matcher(file);
      assertThat(password.find()).isTrue();
      assertThat(file).contains(token);
      assertThat(log).as("the first start's secrets are not in the log").doesNotContain(token)
          .doesNotContain(password.group(1)).contains(data.resolve(FirstStartSecrets.FILE).toString());

      String smtpPassword = new SecretBox(k1, null).seal("smtp-password-1");
      try (TestServer sealed = TestServer.start(data, "--herald.server.secret-key=" + k1,
          "--herald.server.alerts.smtp-password=" + smtpPassword)) {
        String stored = storedSecrets(sealed);
        assertThat(stored).startsWith("secrets=enc:v1:").doesNotContain(secret).doesNotContain(secret.substring(6));
        delivered(sealed, token, merchant, secret);
        assertThat(sealed.context.getBean(AlertProperties.class).getSmtpPassword()).isEqualTo("smtp-password-1");
      }
      try (TestServer rotated = TestServer.start(data, "--herald.server.secret-key=" + k2,
          "--herald.server.previous-secret-keys=" + k1)) {
        String stored = storedSecrets(rotated);
        String k2Id = new SecretBox(k2, null).seal("x").split(":")[2];
        assertThat(stored).as("sealed again under the new key").startsWith("secrets=enc:v1:" + k2Id + ":");
        delivered(rotated, token, merchant, secret);
      }
    }
  }

  @Test
  void aFirstStartThatCannotWriteItsDataFolderPutsTheSecretsInTheTemporaryFolder() throws Exception {
    Path tmpFile = Path.of(System.getProperty("java.io.tmpdir"), "herald-" + FirstStartSecrets.FILE);
    Files.deleteIfExists(tmpFile);
    Path dir = TestServer.tempDir();
    Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
    try (TestServer s = TestServer.start(notADirectory.resolve("data"), "--spring.datasource.url="
        + dev.herald.Herald.Builder.h2Url(dir.resolve("db")) + ";QUERY_CACHE_SIZE=0")) {
      assertThat(Files.readString(tmpFile)).contains(s.adminToken()).contains("console user admin, password");
      assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(tmpFile)))
          .isEqualTo("rw-------");
    } finally {
      Files.deleteIfExists(tmpFile);
    }
  }

  private static String storedSecrets(TestServer s) throws Exception {
    try (Connection c = s.context.getBean(DataSource.class).getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT options FROM herald_definition WHERE name = 'signed'");
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1).lines().filter(l -> l.startsWith("secrets=")).findFirst().orElseThrow();
    }
  }

  private static void delivered(TestServer s, String token, Receiver merchant, String secret) throws Exception {
    int before = merchant.requests.size();
    TestServer.Resp r = s.as(token).post("/api/v1/notices", "{\"notices\":[{\"definition\":\"signed\",\"payload\":7}]}");
    String id = r.json().get("ids").get(0).asString();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> merchant.requests.size() > before);
    Receiver.Request req = merchant.requests.getLast();
    assertThat(WebhookDeliveryTest.Verifier.of(secret).verify(id, req.header("webhook-timestamp"),
        req.header("webhook-signature"), req.bodyBytes(), Instant.now())).as("signed with the opened secret").isTrue();
  }

  @Test
  void urlsThatCarryCredentialsAreMaskedForClientsAndViewers() {
    String def = define("masked", "\"target\":\"https://hooks.invalid/in?token=s3cret&x=1\",\"options\":{"
        + "\"alert.webhook\":\"https://alerts.invalid/hook?key=abc\"}");
    TestServer.Resp made = admin.post("/api/v1/tokens", "{\"name\":\"masking\",\"role\":\"client\"}");
    JsonNode seenByClient = server.as(made.json().get("token").asString()).get("/api/v1/definitions/" + def).json();
    assertThat(seenByClient.get("target").asString()).isEqualTo("https://hooks.invalid/in?token=****&x=****");
    assertThat(seenByClient.get("options").get("alert.webhook").asString())
        .isEqualTo("https://alerts.invalid/hook?key=****");
    JsonNode seenByAdmin = admin.get("/api/v1/definitions/" + def).json();
    assertThat(seenByAdmin.get("target").asString()).isEqualTo("https://hooks.invalid/in?token=s3cret&x=1");

    dev.herald.server.console.ConsoleUsers users = server.context.getBean(dev.herald.server.console.ConsoleUsers.class);
    String viewer = unique("viewer");
    users.create(viewer, ConsoleAccessTest.PASSWORD, dev.herald.server.console.ConsoleRole.VIEWER, "test");
    ConsoleSession s = new ConsoleSession(server);
    s.login(viewer, ConsoleAccessTest.PASSWORD);
    String page = s.get("/console/definitions/" + def).body() + s.get("/console/definitions").body();
    assertThat(page).doesNotContain("s3cret").doesNotContain("key=abc")
        .contains("https://hooks.invalid/in?token=****");
  }
}
