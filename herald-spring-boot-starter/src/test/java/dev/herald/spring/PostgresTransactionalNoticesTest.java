package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeStatus;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactional guarantees on PostgreSQL (embedded, a real server process) with HikariCP, as a
 * production application runs them.
 */
class PostgresTransactionalNoticesTest {
  static EmbeddedPostgres postgres;
  static ConfigurableApplicationContext context;
  static NoticePublisher publisher;
  static JdbcTemplate jdbc;
  static PlatformTransactionManager txManager;
  static Inbox inbox;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  @BeforeAll
  static void start() throws Exception {
    postgres = EmbeddedPostgres.start();
    context = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"),
            "spring.datasource.username=postgres",
            "herald.node-id=pg-test",
            "herald.poll-interval=30s",
            "herald.shutdown-timeout=2s",
            "herald.definitions.plain.handler=inbox",
            "herald.definitions.plain.retry=200ms")
        .run();
    publisher = context.getBean(NoticePublisher.class);
    jdbc = context.getBean(JdbcTemplate.class);
    txManager = context.getBean(PlatformTransactionManager.class);
    inbox = context.getBean(Inbox.class);
    jdbc.execute("CREATE TABLE shop_order (id BIGINT PRIMARY KEY, status VARCHAR(20))");
  }

  @AfterAll
  static void stop() throws Exception {
    if (context != null) {
      context.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  private static TransactionTemplate tx(int propagation) {
    TransactionTemplate t = new TransactionTemplate(txManager);
    t.setPropagationBehavior(propagation);
    return t;
  }

  private static TransactionTemplate tx() {
    return tx(TransactionDefinition.PROPAGATION_REQUIRED);
  }

  private static void drain(String marker) {
    String payload = "{\"marker\": \"" + marker + "\"}";
    tx().executeWithoutResult(s -> publisher.publish("plain", payload));
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.contains(payload));
  }

  @Test
  void committedNoticeIsDeliveredOnceRightAfterTheCommit() {
    NoticeHandle h = tx().execute(s -> {
      jdbc.update("INSERT INTO shop_order (id, status) VALUES (1, 'PLACED')");
      return publisher.publish("plain", "{\"pg\": \"commit\"}");
    });
    Instant committed = Instant.now();
    await().atMost(Duration.ofSeconds(5)).until(() -> h.current().status() == NoticeStatus.SUCCEEDED);
    assertThat(Duration.between(committed, Instant.now())).isLessThan(Duration.ofSeconds(5));
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> inbox.attemptsOf("{\"pg\": \"commit\"}") == 1);
  }

  @Test
  void rolledBackNoticeIsNeverDelivered() {
    NoticeHandle[] h = new NoticeHandle[1];
    assertThatThrownBy(() -> tx().executeWithoutResult(s -> {
      jdbc.update("INSERT INTO shop_order (id, status) VALUES (2, 'PLACED')");
      h[0] = publisher.publish("plain", "{\"pg\": \"rollback\"}");
      throw new IllegalStateException("declined");
    })).hasMessage("declined");
    drain("pg-after-rollback");
    assertThat(inbox.attemptsOf("{\"pg\": \"rollback\"}")).isZero();
    assertThatThrownBy(h[0]::current).isInstanceOf(NoticeNotFoundException.class);
    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM shop_order WHERE id = 2", Integer.class)).isZero();
  }

  @Test
  void handlerExceptionLeavesTheBusinessTransactionCommitted() {
    inbox.failFirstIfContains = "pg-flaky";
    NoticeHandle h = tx().execute(s -> {
      jdbc.update("INSERT INTO shop_order (id, status) VALUES (3, 'PLACED')");
      return publisher.publish("plain", "{\"pg-flaky\": 3}");
    });
    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM shop_order WHERE id = 3", Integer.class)).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> h.current().status() == NoticeStatus.SUCCEEDED);
    assertThat(h.current().attempts()).isEqualTo(2);
  }

  @Test
  void nestedAndRequiresNewBehaveAsDocumented() {
    assertThatThrownBy(() -> tx().executeWithoutResult(outer -> {
      publisher.publish("plain", "{\"pg\": \"outer\"}");
      try {
        tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(inner -> {
          publisher.publish("plain", "{\"pg\": \"nested-undone\"}");
          throw new IllegalStateException("inner fails");
        });
      } catch (IllegalStateException expected) {
        // carry on
      }
      tx(TransactionDefinition.PROPAGATION_REQUIRES_NEW).executeWithoutResult(inner ->
          publisher.publish("plain", "{\"pg\": \"requires-new\"}"));
      await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.contains("{\"pg\": \"requires-new\"}"));
      throw new IllegalStateException("outer fails");
    })).hasMessage("outer fails");

    tx().executeWithoutResult(outer -> {
      try {
        tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(inner -> {
          publisher.publish("plain", "{\"pg\": \"nested-undone-2\"}");
          throw new IllegalStateException("inner fails");
        });
      } catch (IllegalStateException expected) {
        // carry on
      }
      publisher.publish("plain", "{\"pg\": \"outer-kept\"}");
    });
    await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.contains("{\"pg\": \"outer-kept\"}"));
    drain("pg-after-nested");
    assertThat(inbox.attemptsOf("{\"pg\": \"outer\"}")).isZero();
    assertThat(inbox.attemptsOf("{\"pg\": \"nested-undone\"}")).isZero();
    assertThat(inbox.attemptsOf("{\"pg\": \"nested-undone-2\"}")).isZero();
  }

  @Test
  void syncFirstDeliversInline() {
    SyncOutcome out = publisher.publishAndDeliver("plain", "{\"pg\": \"sync\"}", Duration.ofSeconds(5));
    assertThat(out.status()).isEqualTo(SyncOutcome.Status.DELIVERED);
  }
}
