package dev.herald.spring.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import dev.herald.NoticeContext;
import dev.herald.spring.NoticeHandlerMethod;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The recurring example: saved at start-up, its daily slot at 06:30 in Berlin makes one notice. */
@SpringBootTest(classes = DailyFiguresTest.App.class,
    properties = "herald.definitions.marketing-figures.handler=figures")
@AutoConfigureHerald
class DailyFiguresTest {
  public static class Figures {
    final List<String> received = new CopyOnWriteArrayList<>();

    @NoticeHandlerMethod("figures")
    public void figures(NoticeContext ctx) {
      received.add(ctx.payload());
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(DailyFigures.class)
  static class App {
    @Bean
    Figures figures() {
      return new Figures();
    }
  }

  @Autowired Herald herald;
  @Autowired ManualRunner runner;
  @Autowired SettableClock clock;
  @Autowired Figures figures;

  @Test
  void theScheduleSavedAtStartUpFiresItsNextSlotOnce() {
    Instant next = herald.recurring().find("default", "daily-figures").orElseThrow().nextSlot();
    ZonedDateTime local = next.atZone(ZoneId.of("Europe/Berlin"));
    assertThat(local.getHour()).isEqualTo(6);
    assertThat(local.getMinute()).isEqualTo(30);
    clock.set(next.plusSeconds(1));
    runner.runDue();
    runner.runDue();
    assertThat(figures.received).containsExactly("{\"report\": \"daily\", \"day\": \"" + next + "\"}");
  }
}
