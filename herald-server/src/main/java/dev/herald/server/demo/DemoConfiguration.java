package dev.herald.server.demo;

import dev.herald.Herald;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Demo mode ({@code herald.server.demo=true}; off by default): {@link DemoRun} and {@link DemoReceiver}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "herald.server.demo", havingValue = "true")
class DemoConfiguration {

  @Bean
  DemoRun demoRun(Herald herald, Environment environment) {
    return new DemoRun(herald, environment);
  }
}
