package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A tenant's quotas: past its backlog or rate, creating answers 429 with Retry-After and writes nothing. */
class TenantQuotaTest extends ServerTest {

  private static TestServer.Api clientOf(String tenantJson) {
    String id = "quota" + UUID.randomUUID().toString().substring(0, 6);
    TestServer.Resp t = admin.post("/api/v1/tenants", "{\"id\":\"" + id + "\"," + tenantJson + "}");
    assertThat(t.status()).as(t.toString()).isEqualTo(201);
    TestServer.Resp token = admin.post("/api/v1/tokens", "{\"name\":\"q\",\"role\":\"client\",\"tenant\":\"" + id + "\"}");
    return server.as(token.json().get("token").asString());
  }

  private static String batch(int n) {
    StringBuilder b = new StringBuilder("{\"notices\":[");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append("{\"callbackUrl\":\"http://127.0.0.1:9/q\",\"payload\":").append(i)
          .append(",\"delay\":\"1h\"}");
    }
    return b.append("]}").toString();
  }

  private static int count(TestServer.Api client) {
    return client.get("/api/v1/notices?limit=1000").json().get("items").size();
  }

  @Test
  void pastItsBacklogATenantGets429AndNothingIsWritten() {
    TestServer.Api client = clientOf("\"maxBacklog\":3");
    assertThat(client.post("/api/v1/notices", batch(2)).status()).isEqualTo(201);
    TestServer.Resp over = client.post("/api/v1/notices", batch(2));
    assertThat(over.status()).as(over.toString()).isEqualTo(429);
    assertThat(over.error()).isEqualTo("quota_exceeded");
    assertThat(over.header("retry-after")).isNotNull();
    assertThat(over.json().get("detail").asString()).contains("maxBacklog of 3").contains("Nothing was written");
    assertThat(count(client)).isEqualTo(2);
    assertThat(client.post("/api/v1/notices", batch(1)).status()).as("up to the backlog").isEqualTo(201);
    // another tenant's quota is its own
    assertThat(admin.post("/api/v1/notices", batch(2)).status()).isEqualTo(201);
  }

  @Test
  void pastItsRateATenantGets429WithTheWaitAndNothingIsWritten() {
    TestServer.Api client = clientOf("\"maxRate\":\"3/h\"");
    assertThat(client.post("/api/v1/notices", batch(2)).status()).isEqualTo(201);
    TestServer.Resp over = client.post("/api/v1/notices", batch(2));
    assertThat(over.status()).as(over.toString()).isEqualTo(429);
    assertThat(over.json().get("detail").asString()).contains("maxRate of 3/h");
    // one more notice of 3 per hour comes after about 20 minutes
    assertThat(Long.parseLong(over.header("retry-after"))).isBetween(1000L, 1300L);
    assertThat(count(client)).isEqualTo(2);
    assertThat(client.post("/api/v1/notices", batch(1)).status()).isEqualTo(201);
    TestServer.Resp tooBig = client.post("/api/v1/notices", batch(4));
    assertThat(tooBig.status()).isEqualTo(429);
    assertThat(tooBig.json().get("detail").asString()).contains("send smaller batches");
  }
}
