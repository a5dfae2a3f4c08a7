package dev.herald.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The example end to end, on its own database files: paid orders reach marketing once, the declined one never. */
class SpringExampleTest {
  @TempDir Path dir;

  @Test
  void paidOrdersReachTheMarketingPlatformOnceAndTheDeclinedOneNever() {
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(SpringExampleApplication.class)
        .web(WebApplicationType.NONE)
        // a command-line argument, so that it wins over application.yml
        .run("--spring.datasource.url=jdbc:h2:file:" + dir.resolve("example") + ";DB_CLOSE_ON_EXIT=FALSE")) {
      MarketingPlatform marketing = ctx.getBean(MarketingPlatform.class);
      assertThat(marketing.received()).containsExactlyInAnyOrder(
          "order 1 of ann, 10.00", "order 2 of bob, 20.00", "order 4 of dee, 40.00");
      assertThat(ctx.getBean(OrderService.class).statusOf(3)).isEqualTo("NEW");
      assertThat(ctx.getBean(OrderService.class).statusOf(2)).isEqualTo("PAID");
    }
  }
}
