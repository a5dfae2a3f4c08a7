package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.metrics.HeraldMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Herald's Micrometer meters ({@link HeraldMetrics}) on the application's {@link MeterRegistry},
 * when Micrometer is on the class path and a registry exists (Spring Boot's actuator makes one).
 * Turn off with {@code herald.metrics.enabled=false}.
 */
@AutoConfiguration(
    before = HeraldAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, Herald.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "herald.metrics.enabled", matchIfMissing = true)
public class HeraldMetricsAutoConfiguration {

  /** A listener: the Herald factory registers it with the engine like every HeraldListener bean. */
  @Bean
  @ConditionalOnMissingBean
  public HeraldMetrics heraldMetrics(MeterRegistry registry) {
    return new HeraldMetrics(registry);
  }

  /** The gauges need the built engine, so they are registered once every singleton exists. */
  @Bean
  public SmartInitializingSingleton heraldMetricsGauges(HeraldMetrics metrics, ObjectProvider<Herald> herald) {
    return () -> herald.ifAvailable(metrics::watch);
  }
}
