package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.NoticeStatus;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The herald health component on a running application: its figures, and its status past each
 * threshold. Notices of 'elsewhere' are never delivered here (this node delivers only 'local'), so
 * they stay due: a real backlog.
 */
class HeraldHealthTest {
  @TempDir Path dir;

  @Configuration(proxyBeanMethods = false)
  static class WithInbox {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            JacksonAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withUserConfiguration(WithInbox.class)
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.only-definitions=local,fragile,waiting",
            "herald.definitions.waiting.handler=inbox", "herald.definitions.waiting.retry=1h",
            "herald.definitions.local.handler=inbox",
            "herald.definitions.fragile.handler=inbox", "herald.definitions.fragile.max-attempts=1",
            "herald.definitions.elsewhere.handler=inbox", "herald.publisher.require-transaction=false");
  }

  @Test
  void reportsBacklogOldestDueAgeAndDeadAndStaysUpWithoutThresholds() {
    runner().run(ctx -> {
      NoticePublisher notices = ctx.getBean(NoticePublisher.class);
      Inbox inbox = ctx.getBean(Inbox.class);
      inbox.down = true;
      NoticeHandle dead = notices.publish("fragile", "{}");
      notices.publish("elsewhere", "{\"n\":1}");
      notices.publish("elsewhere", "{\"n\":2}");
      await().atMost(Duration.ofSeconds(10)).until(() -> dead.current().status() == NoticeStatus.DEAD);

      Health health = ctx.getBean(HeraldHealthIndicator.class).health(true);
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("backlog", 2L).containsEntry("dead", 1L)
          .containsEntry("deadWindow", "PT24H").containsKey("backlogAge").doesNotContainKey("exceeded");
      assertThat(Duration.parse((String) health.getDetails().get("backlogAge"))).isPositive();
    });
  }

  /** An outage: notices waiting for their retry are owed, so they are backlog (not only those due this instant). */
  @Test
  void noticesWaitingForARetryAreBacklog() {
    runner().run(ctx -> {
      Inbox inbox = ctx.getBean(Inbox.class);
      inbox.down = true;
      NoticeHandle h = ctx.getBean(NoticePublisher.class).publish("waiting", "{}");
      await().atMost(Duration.ofSeconds(10)).until(() -> h.current().status() == NoticeStatus.FAILED);
      Health health = ctx.getBean(HeraldHealthIndicator.class).health(true);
      assertThat(health.getDetails()).containsEntry("backlog", 1L);
    });
  }

  @Test
  void goesOutOfServicePastTheBacklogThreshold() {
    runner().withPropertyValues("herald.health.max-backlog=1").run(ctx -> {
      HeraldHealthIndicator indicator = ctx.getBean(HeraldHealthIndicator.class);
      NoticePublisher notices = ctx.getBean(NoticePublisher.class);
      notices.publish("elsewhere", "{\"n\":1}");
      assertThat(indicator.health(true).getStatus()).as("at the threshold").isEqualTo(Status.UP);
      notices.publish("elsewhere", "{\"n\":2}");
      Health health = indicator.health(true);
      assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
      assertThat(health.getDetails().get("exceeded")).asList()
          .containsExactly("backlog 2 > herald.health.max-backlog 1");
    });
  }

  @Test
  void goesToACustomStatusWhenTheOldestDueNoticeIsTooOld() {
    runner().withPropertyValues("herald.health.max-oldest-due-age=300ms", "herald.health.status=DEGRADED").run(ctx -> {
      HeraldHealthIndicator indicator = ctx.getBean(HeraldHealthIndicator.class);
      ctx.getBean(NoticePublisher.class).publish("elsewhere", "{}");
      await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health(true).getStatus().equals(new Status("DEGRADED")));
      assertThat(indicator.health(true).getDetails().get("exceeded").toString())
          .contains("> herald.health.max-oldest-due-age PT0.3S");
    });
  }

  @Test
  void goesOutOfServicePastTheDeadThreshold() {
    runner().withPropertyValues("herald.health.max-dead=0").run(ctx -> {
      HeraldHealthIndicator indicator = ctx.getBean(HeraldHealthIndicator.class);
      assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);
      ctx.getBean(Inbox.class).down = true;
      NoticeHandle dead = ctx.getBean(NoticePublisher.class).publish("fragile", "{}");
      await().atMost(Duration.ofSeconds(10)).until(() -> dead.current().status() == NoticeStatus.DEAD);
      Health health = indicator.health(true);
      assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
      assertThat(health.getDetails().get("exceeded")).asList().containsExactly("dead 1 > herald.health.max-dead 0");
    });
  }
}
