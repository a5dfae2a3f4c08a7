package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.metrics.HeraldMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter puts Herald's meters on the application's registry, and only when there is one. */
class HeraldMetricsAutoConfigurationTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldAutoConfiguration.class, HeraldMetricsAutoConfiguration.class))
        .withBean(Inbox.class)
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.definitions.orders.handler=inbox");
  }

  @Test
  void deliveriesAreCountedOnTheApplicationsRegistry() {
    runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(ctx -> {
      assertThat(ctx).hasSingleBean(HeraldMetrics.class);
      MeterRegistry registry = ctx.getBean(MeterRegistry.class);
      ctx.getBean(Herald.class).enqueue("orders", "{\"id\":1}");
      await().atMost(Duration.ofSeconds(10)).until(() -> registry.find("herald.notices.delivered")
          .tag("definition", "orders").counter() != null);
      assertThat(registry.get("herald.notices.enqueued").tag("definition", "orders").counter().count()).isEqualTo(1);
      assertThat(registry.get("herald.notices.live").tag("definition", "orders").gauge())
          .as("gauges registered once Herald was built").isNotNull();
      assertThat(registry.get("herald.notices.held").gauge().value()).isGreaterThanOrEqualTo(0);
    });
  }

  @Test
  void noRegistryOrTurnedOffMeansNoMeters() {
    runner().run(ctx -> assertThat(ctx).doesNotHaveBean(HeraldMetrics.class));
    runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues("herald.metrics.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(HeraldMetrics.class));
  }
}
