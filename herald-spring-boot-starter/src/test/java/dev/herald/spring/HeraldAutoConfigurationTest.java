package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeHandler;
import dev.herald.NoticeRequest;
import dev.herald.EngineSettings;
import dev.herald.schedule.RetrySchedule;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import dev.herald.spring.test.HeraldTestAutoConfiguration;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the auto-configuration creates, from which properties and beans, and how users override it. */
class HeraldAutoConfigurationTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            JacksonAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.publisher.require-transaction=false"); // standalone notices
  }

  @Configuration(proxyBeanMethods = false)
  static class WithInbox {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  @Test
  void createsAStartedHeraldOnTheApplicationsDataSourceAndAPublisherNamedNoticePublisher() {
    runner().run(ctx -> {
      assertThat(ctx).hasNotFailed();
      Herald herald = ctx.getBean(Herald.class);
      assertThat(herald.isRunning()).as("started with the context").isTrue();
      assertThat(herald.dataSource()).isSameAs(ctx.getBean(javax.sql.DataSource.class));
      assertThat(ctx).hasBean("noticePublisher").hasSingleBean(NoticePublisher.class);
      assertThat(ctx).hasSingleBean(HeraldLifecycle.class);
      Health health = ctx.getBean(HeraldHealthIndicator.class).health(true);
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("running", true)
          .containsEntry("nodeId", herald.settings().nodeId());
    });
  }

  @Test
  void autoStartOffBuildsHeraldWithoutStartingIt() {
    runner().withPropertyValues("herald.auto-start=false").run(ctx -> {
      assertThat(ctx).hasNotFailed();
      Herald herald = ctx.getBean(Herald.class);
      assertThat(herald.isRunning()).isFalse();
      assertThat(herald.runDue()).as("a test may drive it").isZero();
    });
  }

  @Test
  void testAutoConfigurationGivesASettableClockAndAManualRunnerOnIt() {
    runner().withConfiguration(AutoConfigurations.of(HeraldTestAutoConfiguration.class))
        .withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.auto-start=false", "herald.definitions.inboxed.handler=inbox")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(ManualRunner.class).hasSingleBean(SettableClock.class);
          SettableClock clock = ctx.getBean(SettableClock.class);
          assertThat(ctx.getBean(Herald.class).clock()).isSameAs(clock);
          ctx.getBean(NoticePublisher.class).publish(
              ctx.getBean(NoticePublisher.class).request("inboxed", "{\"n\":1}").delay(Duration.ofMinutes(1)));
          ManualRunner runner = ctx.getBean(ManualRunner.class);
          assertThat(runner.runDue()).as("not due yet").isZero();
          assertThat(runner.advanceAndRun(Duration.ofMinutes(1))).isEqualTo(1);
          assertThat(ctx.getBean(Inbox.class).received).containsExactly("{\"n\":1}");
        });
  }

  @Test
  void stopsTheEngineWhenTheContextCloses() {
    Herald[] herald = new Herald[1];
    runner().run(ctx -> herald[0] = ctx.getBean(Herald.class));
    assertThat(herald[0].isRunning()).isFalse();
  }

  @Test
  void healthIsDownWhenTheEngineIsNotRunning() {
    runner().run(ctx -> {
      ctx.getBean(HeraldLifecycle.class).stop();
      Health health = ctx.getBean(HeraldHealthIndicator.class).health(true);
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsEntry("running", false);
    });
  }

  @Test
  void noHealthIndicatorWithoutSpringBootHealth() {
    runner().withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(Herald.class).doesNotHaveBean(HeraldHealthIndicator.class));
  }

  @Test
  void healthIndicatorCanBeTurnedOff() {
    runner().withPropertyValues("management.health.herald.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(HeraldHealthIndicator.class));
  }

  @Test
  void disabledByProperty() {
    runner().withPropertyValues("herald.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(Herald.class).doesNotHaveBean(NoticePublisher.class));
  }

  @Test
  void everyEngineSettingHasAProperty() {
    runner().withPropertyValues(
        "herald.node-id=node-7", "herald.poll-interval=250ms", "herald.look-ahead=PT2S", "herald.node-timeout=4s",
        "herald.claim-batch=50", "herald.max-held=500", "herald.max-concurrent-deliveries=8",
        "herald.max-concurrent-per-receiver=12", "herald.delivery-timeout=20s", "herald.write-batch=20", "herald.shutdown-timeout=3s",
        "herald.history-retention=7d", "herald.housekeeping-interval=1m", "herald.max-payload-bytes=2048",
        "herald.circuit-failure-threshold=3", "herald.circuit-open-for=10s",
        "herald.circuit-slow-call-duration=2s", "herald.circuit-slow-call-rate=0.8",
        "herald.only-definitions=orders,payments", "herald.only-shards=0,3", "herald.max-backlog=5000").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          EngineSettings s = ctx.getBean(Herald.class).settings();
          assertThat(s.nodeId()).isEqualTo("node-7");
          assertThat(s.pollInterval()).isEqualTo(Duration.ofMillis(250));
          assertThat(s.lookAhead()).isEqualTo(Duration.ofSeconds(2));
          assertThat(s.nodeTimeout()).isEqualTo(Duration.ofSeconds(4));
          assertThat(s.claimBatch()).isEqualTo(50);
          assertThat(s.maxHeld()).isEqualTo(500);
          assertThat(s.maxConcurrentDeliveries()).isEqualTo(8);
          assertThat(s.maxConcurrentPerReceiver()).isEqualTo(12);
          assertThat(s.deliveryTimeout()).isEqualTo(Duration.ofSeconds(20));
          assertThat(s.writeBatch()).isEqualTo(20);
          assertThat(s.shutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
          assertThat(s.historyRetention()).isEqualTo(Duration.ofDays(7));
          assertThat(s.housekeepingInterval()).isEqualTo(Duration.ofMinutes(1));
          assertThat(s.maxPayloadBytes()).isEqualTo(2048);
          assertThat(s.circuitFailureThreshold()).isEqualTo(3);
          assertThat(s.circuitOpenFor()).isEqualTo(Duration.ofSeconds(10));
          assertThat(s.circuitSlowCalls().threshold()).isEqualTo(Duration.ofSeconds(2));
          assertThat(s.circuitSlowCalls().rate()).isEqualTo(0.8);
          assertThat(s.definitions()).containsExactlyInAnyOrder("orders", "payments");
          assertThat(s.shards()).containsExactlyInAnyOrder(0, 3);
          assertThat(s.maxBacklog()).isEqualTo(5000);
        });
  }

  @Test
  void definitionsFromPropertiesTakeEveryField() {
    runner().withUserConfiguration(WithInbox.class).withPropertyValues(
        "herald.definitions.order-paid.handler=inbox",
        "herald.definitions.order-paid.retry=5s, 5m, 1h, 1d",
        "herald.definitions.order-paid.max-attempts=-1",
        "herald.definitions.order-paid.max-interval=2h",
        "herald.definitions.order-paid.alert=after:3",
        "herald.definitions.order-paid.confirm-required=true",
        "herald.definitions.order-paid.confirm-timeout=PT90S",
        "herald.definitions.order-paid.description=tell the merchant",
        "herald.definitions.order-paid.options.retry-on=java.io.IOException",
        "herald.definitions[daily.figures].channel=local",
        "herald.definitions[daily.figures].target=inbox").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          Herald herald = ctx.getBean(Herald.class);
          NoticeDefinition paid = herald.definitions().find("order-paid").orElseThrow();
          assertThat(paid.channel()).isEqualTo("local");
          assertThat(paid.target()).isEqualTo("inbox");
          assertThat(paid.retrySchedule()).isEqualTo(RetrySchedule.parse("5s, 5m, 1h, 1d"));
          assertThat(paid.maxAttempts()).isEqualTo(-1);
          assertThat(paid.maxInterval()).isEqualTo(Duration.ofHours(2));
          assertThat(paid.alertPolicy()).isEqualTo(AlertPolicy.afterFailures(3));
          assertThat(paid.confirmRequired()).isTrue();
          assertThat(paid.confirmTimeout()).isEqualTo(Duration.ofSeconds(90));
          assertThat(paid.description()).isEqualTo("tell the merchant");
          assertThat(paid.options()).containsEntry("retry-on", "java.io.IOException");
          NoticeDefinition figures = herald.definitions().find("daily.figures").orElseThrow();
          assertThat(figures.target()).isEqualTo("inbox");
          assertThat(figures.maxAttempts()).as("core default").isEqualTo(NoticeDefinition.DEFAULT_MAX_ATTEMPTS);
        });
  }

  /** A NoticeHandler bean registered by annotation, a channel, a listener and two customizers. */
  @Configuration(proxyBeanMethods = false)
  static class Extensions {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Bean
    @HeraldHandler("greeter")
    NoticeHandler greeterHandler() {
      return ctx -> {
        events.add("greeted " + ctx.payload());
        return DeliveryResult.delivered();
      };
    }

    @Bean
    NoticeDefinition greetings() {
      return NoticeDefinition.builder("greetings").handler("greeter").retry("1s").build();
    }

    @Bean
    NoticeDefinition audited() {
      return NoticeDefinition.builder("audited").channel("audit", "ledger").build();
    }

    @Bean
    Channel auditChannel() {
      return new Channel() {
        @Override
        public String name() {
          return "audit";
        }

        @Override
        public CompletionStage<DeliveryResult> deliver(Delivery d) {
          events.add("audit " + d.definition().target() + " " + d.notice().payload());
          return CompletableFuture.completedFuture(DeliveryResult.delivered());
        }
      };
    }

    @Bean
    HeraldListener listener() {
      return new HeraldListener() {
        @Override
        public void onFinished(Notice notice) {
          events.add("finished " + notice.definition());
        }
      };
    }

    @Bean
    @Order(2)
    HeraldCustomizer second() {
      return b -> b.housekeepingInterval(Duration.ofMinutes(3));
    }

    @Bean
    @Order(1)
    HeraldCustomizer first() {
      return b -> b.housekeepingInterval(Duration.ofMinutes(2)).writeBatch(7);
    }
  }

  @Test
  void definitionHandlerChannelListenerAndCustomizerBeansAreUsed() {
    runner().withUserConfiguration(Extensions.class)
        .withPropertyValues("herald.housekeeping-interval=1m", "herald.write-batch=99").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          Herald herald = ctx.getBean(Herald.class);
          assertThat(herald.settings().housekeepingInterval()).as("customizers last, in order").isEqualTo(Duration.ofMinutes(3));
          assertThat(herald.settings().writeBatch()).isEqualTo(7);
          List<String> events = ctx.getBean(Extensions.class).events;
          NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
          publisher.publish("greetings", "{\"hi\":1}");
          publisher.publish("audited", "{\"sum\":2}");
          await().atMost(Duration.ofSeconds(5)).until(() -> events.containsAll(List.of(
              "greeted {\"hi\":1}", "audit ledger {\"sum\":2}", "finished greetings", "finished audited")));
        });
  }

  /** A handler that depends on the publisher (it publishes follow-ups): no dependency cycle. */
  public static class FollowUps {
    private final NoticePublisher publisher;
    final List<JsonNode> seen = new CopyOnWriteArrayList<>();

    public FollowUps(NoticePublisher publisher) {
      this.publisher = publisher;
    }

    @NoticeHandlerMethod("follow-ups")
    public boolean on(JsonNode payload, Notice notice) {
      seen.add(payload);
      if (payload.get("step").asInt() < 3) {
        publisher.publish(notice.definition(), Map.of("step", payload.get("step").asInt() + 1));
      }
      return true;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class WithFollowUps {
    @Bean
    FollowUps followUps(NoticePublisher publisher) {
      return new FollowUps(publisher);
    }
  }

  @Test
  void aHandlerBeanMayDependOnThePublisher() {
    runner().withUserConfiguration(WithFollowUps.class)
        .withPropertyValues("herald.definitions.chain.handler=follow-ups").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          ctx.getBean(NoticePublisher.class).publish("chain", Map.of("step", 1));
          FollowUps f = ctx.getBean(FollowUps.class);
          await().atMost(Duration.ofSeconds(5)).until(() -> f.seen.size() == 3);
          assertThat(f.seen).extracting(n -> n.get("step").asInt()).containsExactlyInAnyOrder(1, 2, 3);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    @Bean
    NoticePublisher myPublisher(Herald herald) {
      return new HeraldNoticePublisher(herald, herald.dataSource(), JsonMapper::shared) {
        @Override
        public NoticeRequest request(String definition, Object payload) {
          return super.request(definition, payload).description("mine");
        }
      };
    }
  }

  @Test
  void applicationBeansReplaceTheStartersOwn() {
    runner().withUserConfiguration(OwnBeans.class).run(ctx -> {
      assertThat(ctx).hasSingleBean(NoticePublisher.class).hasBean("myPublisher").doesNotHaveBean("noticePublisher");
    });
  }

  @Test
  void publishingAfterTheContextClosedSaysHeraldWasStopped() {
    runner().withUserConfiguration(WithInbox.class).withPropertyValues("herald.definitions.plain.handler=inbox")
        .run(ctx -> {
          NoticePublisher publisher = ctx.getBean(NoticePublisher.class);
          ctx.close();
          assertThatThrownBy(() -> publisher.publish("plain", "{}"))
              .isInstanceOf(dev.herald.HeraldException.class)
              .hasMessageContaining("Herald was stopped with the application context")
              .hasMessageContaining("'plain'");
        });
  }

  @Test
  void withoutADataSourceHeraldUsesItsEmbeddedH2Files() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HeraldAutoConfiguration.class))
        .withUserConfiguration(WithInbox.class)
        .withPropertyValues("herald.h2-file=" + dir.resolve("own/herald"), "herald.shutdown-timeout=1s",
            "herald.definitions.plain.handler=inbox")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          NoticeHandle h = ctx.getBean(NoticePublisher.class).publish("plain", "{\"own\":1}");
          assertThat(h.awaitFirstOutcome(Duration.ofSeconds(5))).isPresent();
          assertThat(Files.exists(dir.resolve("own/herald.mv.db"))).isTrue();
        });
  }

  @Test
  void aBadSlowCallRateFailsStartUpNamingItsProperty() {
    runner().withPropertyValues("herald.circuit-slow-call-rate=1.5").run(ctx -> {
      assertThat(ctx).hasFailed();
      assertThat(ctx.getStartupFailure()).hasStackTraceContaining("herald.circuit-slow-call-rate");
    });
  }

  /** The defaults shown to IDEs (additional metadata) are the core's defaults. */
  @Test
  void configurationMetadataDefaultsAreTheCoresDefaults() throws Exception {
    JsonNode metadata;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      metadata = JsonMapper.shared().readTree(in);
    }
    Map<String, String> defaults = new java.util.HashMap<>();
    metadata.get("properties").forEach(p -> {
      if (p.has("defaultValue")) {
        defaults.put(p.get("name").asString(), p.get("defaultValue").asString());
      }
      assertThat(p.has("description")).as("described: " + p.get("name")).isTrue();
    });
    try (Herald h = Herald.builder().dataSource(inMemory()).build()) {
      EngineSettings s = h.settings();
      assertThat(duration(defaults.get("herald.poll-interval"))).isEqualTo(s.pollInterval());
      assertThat(duration(defaults.get("herald.look-ahead"))).isEqualTo(s.lookAhead());
      assertThat(duration(defaults.get("herald.node-timeout"))).isEqualTo(s.nodeTimeout());
      assertThat(defaults.get("herald.claim-batch")).isEqualTo(String.valueOf(s.claimBatch()));
      assertThat(defaults.get("herald.max-held")).isEqualTo(String.valueOf(s.maxHeld()));
      assertThat(defaults.get("herald.max-concurrent-deliveries")).isEqualTo(String.valueOf(s.maxConcurrentDeliveries()));
      assertThat(defaults.get("herald.max-concurrent-per-receiver")).isEqualTo(String.valueOf(s.maxConcurrentPerReceiver()));
      assertThat(duration(defaults.get("herald.delivery-timeout"))).isEqualTo(s.deliveryTimeout());
      assertThat(defaults.get("herald.write-batch")).isEqualTo(String.valueOf(s.writeBatch()));
      assertThat(duration(defaults.get("herald.shutdown-timeout"))).isEqualTo(s.shutdownTimeout());
      assertThat(duration(defaults.get("herald.history-retention"))).isEqualTo(s.historyRetention());
      assertThat(duration(defaults.get("herald.housekeeping-interval"))).isEqualTo(s.housekeepingInterval());
      assertThat(defaults.get("herald.max-payload-bytes")).isEqualTo(String.valueOf(s.maxPayloadBytes()));
      assertThat(defaults.get("herald.circuit-failure-threshold")).isEqualTo(String.valueOf(s.circuitFailureThreshold()));
      assertThat(duration(defaults.get("herald.circuit-open-for"))).isEqualTo(s.circuitOpenFor());
      assertThat(duration(defaults.get("herald.circuit-slow-call-duration"))).isEqualTo(s.circuitSlowCalls().threshold());
      assertThat(Double.parseDouble(defaults.get("herald.circuit-slow-call-rate"))).isEqualTo(s.circuitSlowCalls().rate());
      assertThat(defaults.get("herald.max-backlog")).isEqualTo(String.valueOf(s.maxBacklog()));
    }
  }

  private static javax.sql.DataSource inMemory() {
    org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
    ds.setURL("jdbc:h2:mem:defaults;DB_CLOSE_DELAY=-1");
    return ds;
  }

  private static Duration duration(String text) {
    return org.springframework.boot.convert.DurationStyle.detectAndParse(text);
  }
}
