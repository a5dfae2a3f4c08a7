package dev.herald.server.alerts;

import dev.herald.Herald;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Alerts by e-mail and webhook: the channel and the listener are picked up by the starter like any. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AlertProperties.class)
class AlertConfiguration {

  /** Declares the alert.* options; the starter registers it with Herald, which checks them at save. */
  @Bean
  AlertOptions alertOptions() {
    return new AlertOptions();
  }

  @Bean(destroyMethod = "")
  MailAlertChannel mailAlertChannel(AlertProperties properties) {
    return new MailAlertChannel(properties);
  }

  @Bean
  AlertService alertService(ObjectProvider<Herald> herald, AlertProperties properties,
      dev.herald.server.NoticeOwners owners, dev.herald.server.Tenants tenants, dev.herald.server.AlertTargets targets,
      ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters, dev.herald.server.DefinitionSecrets secrets) {
    return new AlertService(herald::getObject, properties, Clock.systemUTC(),
        (c, id, definition) -> owners.writeOne(c, id, tenants.ownerOf(definition)),
        (kind, destination) -> {
          if (kind.equals("webhook")) {
            targets.checkWebhook(destination);
          } else {
            targets.checkEmail(destination);
          }
        },
        meters.getIfAvailable(), secrets::seal);
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> alertDefinitions(AlertService alerts) {
    return event -> alerts.ensureDefinitions();
  }

  /** Alerts about this server's brokers and mail servers staying down. */
  @Bean(destroyMethod = "close")
  PeerAlerts peerAlerts(ObjectProvider<Herald> herald, AlertProperties properties) {
    return new PeerAlerts(herald::getObject, properties, Clock.systemUTC());
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> peerAlertsStart(PeerAlerts peerAlerts) {
    return event -> peerAlerts.start();
  }
}
