package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.NoticeStatus;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code /actuator/herald} over real HTTP: find, resend, cancel, confirm, recover, and its exposure rules. */
class HeraldEndpointTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  static HttpResponse<String> call(int port, String method, String path, String json) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
        : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode json(HttpResponse<String> r) {
    return JsonMapper.shared().readTree(r.body());
  }

  @Nested
  @SpringBootTest(classes = App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
      "management.endpoints.web.exposure.include=health,herald", "management.endpoint.herald.access=unrestricted",
      "herald.definitions.orders.handler=inbox", "herald.definitions.orders.max-attempts=1",
      "herald.definitions.confirmed.handler=inbox", "herald.definitions.confirmed.confirm-required=true",
      "herald.publisher.require-transaction=false"})
  @AutoConfigureHerald
  class Unrestricted {
    @LocalServerPort int port;
    @Autowired NoticePublisher notices;
    @Autowired ManualRunner runner;
    @Autowired Inbox inbox;

    @Test
    void findsANoticeWithItsAttemptsAndListsNotices() throws Exception {
      NoticeHandle h = notices.publish("orders", "{\"order\":1}");
      runner.runDue();
      JsonNode detail = json(call(port, "GET", "/actuator/herald/" + h.id(), null));
      assertThat(detail.at("/notice/status").asString()).isEqualTo("SUCCEEDED");
      assertThat(detail.at("/attempts/0/outcome").asString()).isEqualTo("DELIVERED");

      JsonNode list = json(call(port, "GET", "/actuator/herald?definition=orders&status=succeeded&limit=5", null));
      assertThat(list.get("definitions").toString()).contains("orders", "confirmed");
      assertThat(list.get("notices").toString()).contains(h.id().toString());

      HttpResponse<String> missing = call(port, "GET", "/actuator/herald/" + UUID.randomUUID(), null);
      assertThat(missing.statusCode()).isEqualTo(404);
      HttpResponse<String> bad = call(port, "GET", "/actuator/herald/not-an-id", null);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(json(bad).get("field").asString()).isEqualTo("id");
    }

    @Test
    void resendsADeadNoticeAndRecoversTheDeadOfADefinition() throws Exception {
      inbox.down = true;
      NoticeHandle first = notices.publish("orders", "{\"order\":2}");
      NoticeHandle second = notices.publish("orders", "{\"order\":3}");
      runner.runDue();
      assertThat(first.current().status()).isEqualTo(NoticeStatus.DEAD);
      inbox.down = false;

      HttpResponse<String> resent = call(port, "POST", "/actuator/herald/" + first.id(), "{\"action\":\"resend\"}");
      assertThat(resent.statusCode()).isEqualTo(200);
      assertThat(json(resent).get("status").asString()).isEqualTo("PENDING");
      runner.runDue();
      assertThat(first.current().status()).isEqualTo(NoticeStatus.SUCCEEDED);

      HttpResponse<String> recovered = call(port, "POST", "/actuator/herald", "{\"definition\":\"orders\"}");
      assertThat(recovered.statusCode()).isEqualTo(200);
      assertThat(json(recovered).get("recovered").asInt()).isEqualTo(1);
      runner.runDue();
      assertThat(second.current().status()).isEqualTo(NoticeStatus.SUCCEEDED);

      HttpResponse<String> unknown = call(port, "POST", "/actuator/herald", "{\"definition\":\"oders\"}");
      assertThat(unknown.statusCode()).isEqualTo(400);
      assertThat(json(unknown).get("error").asString()).contains("no definition named 'oders'", "orders");
    }

    @Test
    void cancelsAWaitingNoticeConfirmsADeliveredOneAndRefusesWhatTheStatusForbids() throws Exception {
      NoticeHandle waiting = notices.publish(notices.request("orders", "{\"order\":4}").delay(java.time.Duration.ofHours(1)));
      HttpResponse<String> cancelled = call(port, "POST", "/actuator/herald/" + waiting.id(), "{\"action\":\"cancel\"}");
      assertThat(json(cancelled).get("status").asString()).isEqualTo("CANCELLED");
      HttpResponse<String> again = call(port, "POST", "/actuator/herald/" + waiting.id(), "{\"action\":\"cancel\"}");
      assertThat(again.statusCode()).isEqualTo(409);

      NoticeHandle confirmed = notices.publish("confirmed", "{\"order\":5}");
      runner.runDue();
      assertThat(confirmed.current().status()).isEqualTo(NoticeStatus.AWAITING_CONFIRM);
      HttpResponse<String> ok = call(port, "POST", "/actuator/herald/" + confirmed.id(), "{\"action\":\"confirm\"}");
      assertThat(json(ok).get("status").asString()).isEqualTo("SUCCEEDED");

      HttpResponse<String> bad = call(port, "POST", "/actuator/herald/" + confirmed.id(), "{\"action\":\"explode\"}");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(json(bad).get("field").asString()).isEqualTo("action");
    }
  }

  @Nested
  @SpringBootTest(classes = App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
      "management.endpoints.web.exposure.include=herald", "herald.definitions.orders.handler=inbox",
      "herald.publisher.require-transaction=false"})
  @AutoConfigureHerald
  class ExposedWithDefaultAccess {
    @LocalServerPort int port;
    @Autowired NoticePublisher notices;

    @Test
    void readsButRefusesActions() throws Exception {
      NoticeHandle h = notices.publish("orders", "{\"order\":6}");
      assertThat(call(port, "GET", "/actuator/herald/" + h.id(), null).statusCode()).isEqualTo(200);
      assertThat(call(port, "POST", "/actuator/herald/" + h.id(), "{\"action\":\"cancel\"}").statusCode())
          .isIn(404, 405);
      assertThat(h.current().status()).isEqualTo(NoticeStatus.PENDING);
    }
  }

  @Nested
  @SpringBootTest(classes = App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
      "herald.definitions.orders.handler=inbox"})
  @AutoConfigureHerald
  class NotExposed {
    @LocalServerPort int port;

    @Test
    void isNotThere() throws Exception {
      assertThat(call(port, "GET", "/actuator/herald", null).statusCode()).isEqualTo(404);
      assertThat(call(port, "GET", "/actuator/health", null).statusCode()).as("health is").isIn(200, 503);
    }
  }
}
