package dev.herald.server.demo;

import dev.herald.Herald;
import dev.herald.server.WebhookAdjustment;
import java.util.List;
import java.util.OptionalInt;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Demo mode ({@code herald.server.demo=true}; off by default): {@link DemoRun} and {@link DemoReceiver}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "herald.server.demo", havingValue = "true")
class DemoConfiguration {
  /** The HTTP channel's circuit threshold in demo mode, unless set. */
  static final int CIRCUIT_FAILURE_THRESHOLD = 50;

  @Bean
  DemoRun demoRun(Herald herald, Environment environment) {
    return new DemoRun(herald, environment);
  }

  /** The demo's receiver is this server itself, and its three receivers share that one origin. */
  @Bean
  WebhookAdjustment demoWebhooks(Environment environment) {
    return new WebhookAdjustment() {
      @Override
      public List<String> allow() {
        return List.of("127.0.0.1");
      }

      @Override
      public OptionalInt circuitFailureThreshold() {
        // a few failures in a row must not pause all three receivers; a configured threshold wins
        return environment.containsProperty("herald.http.circuit-failure-threshold")
            ? OptionalInt.empty() : OptionalInt.of(CIRCUIT_FAILURE_THRESHOLD);
      }
    };
  }
}
