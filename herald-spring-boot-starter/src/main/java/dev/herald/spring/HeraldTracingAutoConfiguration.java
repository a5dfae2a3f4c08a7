package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.tracing.AttemptObservations;
import dev.herald.tracing.HeraldTracing;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Tracing across the gap between a transaction and its notices' attempts, with nothing for the
 * application to do: with an {@link ObservationRegistry} bean each attempt is an observation
 * ({@link AttemptObservations}, {@code herald.attempt}) under the notice's trace; with a Micrometer
 * Tracing {@link Tracer} bean, notices keep the {@code traceparent} of the span that enqueued them.
 * The customizers run first, so an application's own {@link HeraldCustomizer} may replace either.
 */
@AutoConfiguration(
    before = HeraldAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration"
    })
@ConditionalOnClass({Herald.class, ObservationRegistry.class})
public class HeraldTracingAutoConfiguration {

  /** Each attempt an observation, when the application has a registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(ObservationRegistry.class)
  static class Observations {
    @Bean
    @ConditionalOnMissingBean
    AttemptObservations heraldAttemptObservations(ObservationRegistry registry) {
      return new AttemptObservations(registry);
    }

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    HeraldCustomizer heraldAttemptObserver(AttemptObservations observations) {
      return b -> b.attemptObserver(observations);
    }
  }

  /** Notices keep the current span's trace, when the application traces with Micrometer Tracing. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Tracer.class)
  @ConditionalOnBean(Tracer.class)
  static class CurrentTrace {
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    HeraldCustomizer heraldTraceContext(Tracer tracer) {
      return b -> b.traceContext(HeraldTracing.currentTraceparent(tracer));
    }
  }
}
