package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The server on PostgreSQL (embedded, a real server process): one property, spring.datasource.url. */
class PostgresServerTest {
  private static final String ADMIN = "postgres-admin-token-for-tests-0123456789";

  @Test
  void theServerRunsOnPostgresql() throws Exception {
    try (EmbeddedPostgres postgres = EmbeddedPostgres.start();
        Receiver receiver = new Receiver();
        TestServer s = TestServer.start(TestServer.tempDir(),
            "--spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"),
            "--spring.datasource.username=postgres",
            "--herald.node-id=pg-1",
            "--herald.server.bootstrap-admin-token=" + ADMIN,
            "--herald.server.console.admin-password=console-lantern-quartz-7")) {
      TestServer.Api admin = s.as(ADMIN);
      assertThat(admin.post("/api/v1/definitions", """
          {"name": "pg-hook", "target": "%s", "options": {"expected-body": "success"}}"""
          .formatted(receiver.url("/pg"))).status()).isEqualTo(201);
      receiver.otherwise(Receiver.Response.ok("success"));
      StringBuilder items = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        items.append(i == 0 ? "" : ",").append("{\"definition\":\"pg-hook\",\"payload\":{\"n\":%d}}".formatted(i));
      }
      TestServer.Resp created = admin.post("/api/v1/notices", "{\"notices\":[" + items + "]}");
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(10)).until(() -> receiver.count() == 5);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
          admin.get("/api/v1/notices?definition=pg-hook&status=SUCCEEDED").json().get("items")).hasSize(5));
      java.util.List<Integer> seen = new java.util.ArrayList<>();
      for (int offset = 0; offset < 5; offset += 2) {
        tools.jackson.databind.JsonNode page = admin.get("/api/v1/notices?definition=pg-hook&limit=2&offset=" + offset).json();
        page.get("items").forEach(n -> seen.add(n.get("payload").get("n").asInt()));
        assertThat(page.get("hasMore").asBoolean()).isEqualTo(offset < 4);
      }
      assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3, 4);

      TestServer.Resp client = admin.post("/api/v1/tokens", "{\"name\": \"pg client\", \"role\": \"client\"}");
      assertThat(s.as(client.json().get("token").asString()).get("/api/v1/notices").status()).isEqualTo(200);

      try (Connection c = s.context.getBean(DataSource.class).getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT script FROM herald_server_schema_version ORDER BY version")) {
        assertThat(c.getMetaData().getDatabaseProductName()).isEqualTo("PostgreSQL");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("V1__api_tokens.sql");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("V2__endpoints.sql");
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("V3__console_users.sql");
      }

      // the console's own SQL (search, charts) and the metrics' counts run on PostgreSQL too
      ConsoleSession console = new ConsoleSession(s);
      assertThat(console.login("admin", "console-lantern-quartz-7")).endsWith("/console");
      String overview = console.get("/console?range=day&definition=pg-hook").body();
      assertThat(overview).contains("id=\"total-deliveries\">5<");
      String found = console.get("/console/notices?definition=pg-hook&status=SUCCEEDED&text=").body();
      assertThat(found.split("class=\"notice-row\"", -1)).hasSize(6);
      String scrape = admin.get("/actuator/prometheus").text();
      String heraldLines = String.join("\n", scrape.lines().filter(l -> l.startsWith("herald_")).toList());
      assertThat(heraldLines).contains("herald_notices_dead_notices{definition=\"pg-hook\"} 0.0");
    }
  }
}
