package dev.herald.server;

import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The beans of events, endpoints and schedules (issue 23). The key that seals endpoints' secrets at
 * rest is issue 21's {@code herald.server.secret-key} (and {@code previous-secret-keys}), read here
 * with {@link SecretBox} as that change reads it; where that change defines its own {@code
 * SecretBox} bean, this one goes.
 */
@Configuration(proxyBeanMethods = false)
class EventsConfiguration {

  @Bean
  SecretBox endpointSecretBox(@Value("${herald.server.secret-key:}") String key,
      @Value("${herald.server.previous-secret-keys:}") List<String> previous) {
    return new SecretBox(key, previous);
  }

  @Bean
  EndpointSecrets endpointSecrets(SecretBox box) {
    return new EndpointSecrets(box);
  }
}
