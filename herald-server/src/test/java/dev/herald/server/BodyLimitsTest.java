package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Bodies are read as a stream within limits: values kept as a tree are counted while reading, and
 * the bytes all requests read at once are bounded (a request past the bound gets 503 and Retry-After,
 * nothing changed), so that memory stays bounded whatever clients send.
 */
class BodyLimitsTest {

  @Test
  void tooManyValuesOutsidePayloadsAreRefusedWhileReading() {
    try (TestServer server = TestServer.start(TestServer.tempDir(), "--herald.server.max-batch=10")) {
      StringBuilder many = new StringBuilder("{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"payload\":1,"
          + "\"description\":[0");
      for (int i = 0; i < RequestBodies.maxTokens(10); i++) {
        many.append(",0");
      }
      many.append("]}]}");
      TestServer.Resp r = server.as(server.adminToken()).post("/api/v1/notices", many.toString());
      assertThat(r.status()).as(r.toString()).isEqualTo(413);
      assertThat(r.json().get("detail").asString()).contains("more than " + RequestBodies.maxTokens(10) + " JSON values");
      // payloads are not counted as values: they are copied as text, up to the payload limit
      StringBuilder big = new StringBuilder("{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"delay\":\"1h\","
          + "\"payload\":[0");
      for (int i = 0; i < RequestBodies.maxTokens(10); i++) {
        big.append(",0");
      }
      big.append("]}]}");
      assertThat(server.as(server.adminToken()).post("/api/v1/notices", big.toString()).status()).isEqualTo(201);
    }
  }

  @Test
  void pastTheBytesInFlightARequestGets503AndChangesNothing() throws Exception {
    try (TestServer server = TestServer.start(TestServer.tempDir(), "--herald.server.max-request-size=1MB",
        "--herald.server.max-request-bytes-in-flight=1MB")) {
      String token = server.adminToken();
      // a body that arrives slowly holds what it has sent so far (600 KB of 900 KB)
      try (Socket slow = new Socket("127.0.0.1", server.port)) {
        OutputStream out = slow.getOutputStream();
        out.write(("POST /api/v1/notices HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer " + token
            + "\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        byte[] part = ("{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/x\",\"payload\":\"" + "a".repeat(600_000))
            .getBytes(StandardCharsets.US_ASCII);
        out.write(part);
        out.flush();
        String body = "{\"notices\":[{\"callbackUrl\":\"http://127.0.0.1:9/y\",\"payload\":\"" + "b".repeat(500_000)
            + "\",\"delay\":\"1h\"}]}";
        TestServer.Resp busy = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
            .until(() -> server.as(token).post("/api/v1/notices", body), r -> r.status() == 503);
        assertThat(busy.error()).isEqualTo("busy");
        assertThat(busy.header("retry-after")).isNotNull();
        assertThat(busy.json().get("detail").asString()).contains("max-request-bytes-in-flight")
            .contains("nothing was changed");
        assertThat(server.as(token).get("/api/v1/notices?limit=1000").text()).doesNotContain("127.0.0.1:9/y");
        slow.close();
        // once the slow request is gone, its bytes are given back
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
            .until(() -> server.as(token).post("/api/v1/notices", body).status() == 201);
      }
    }
  }
}
