package dev.herald.spring.test;

import dev.herald.Herald;
import dev.herald.spring.HeraldAutoConfiguration;
import dev.herald.spring.HeraldCustomizer;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * What {@link AutoConfigureHerald} imports: a {@link SettableClock} (unless the test defines one),
 * the customizer that builds Herald on it, and a {@link ManualRunner}. Not in the application's
 * auto-configurations: only a test imports it.
 */
@AutoConfiguration(after = HeraldAutoConfiguration.class)
@ConditionalOnBean(Herald.class)
public class HeraldTestAutoConfiguration {

  /** Starts at the current time, truncated to milliseconds. */
  @Bean
  @ConditionalOnMissingBean
  public SettableClock heraldClock() {
    return SettableClock.startingNow();
  }

  @Bean
  public HeraldCustomizer heraldTestClockCustomizer(SettableClock heraldClock) {
    return builder -> builder.clock(heraldClock);
  }

  @Bean
  @ConditionalOnMissingBean
  public ManualRunner heraldManualRunner(Herald herald, SettableClock heraldClock) {
    return new ManualRunner(herald, heraldClock);
  }
}
