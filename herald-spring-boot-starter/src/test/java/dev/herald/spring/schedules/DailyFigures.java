package dev.herald.spring.schedules;

import dev.herald.Herald;
import dev.herald.recurring.RecurringSchedule;
import java.time.ZoneId;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter README's recurring example; outside the docs package, whose shop application (it scans
 * that package) has no marketing-figures definition.
 */
// tag::daily-figures[]
@Configuration
public class DailyFigures {
  /** Saved at every start, on every node: the same cadence keeps its next slot, so nothing fires twice. */
  @Bean
  ApplicationRunner dailyFiguresSchedule(Herald herald) {
    return args -> herald.recurring().save(RecurringSchedule.builder("daily-figures")
        .definition("marketing-figures")      // herald.definitions.marketing-figures.*
        .payload("{\"report\": \"daily\", \"day\": \"{{slot}}\"}")
        .cron("30 6 * * *", ZoneId.of("Europe/Berlin"))
        .missed(RecurringSchedule.MissedSlots.FIRE_ONCE)
        .build());
  }
}
// end::daily-figures[]
