package dev.herald.server;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The webhook channel's settings under {@code herald.http.*} (the starter's, see herald-channel-http's
 * README), and the server's own: how often endpoint settings are read again.
 */
@ConfigurationProperties("herald.http")
public class HttpChannelProperties extends dev.herald.spring.HttpChannelProperties {

  /** How often each server reads the endpoint settings (disabled flags, rates) other servers stored. */
  private Duration endpointSync = Duration.ofSeconds(15);

  public Duration getEndpointSync() {
    return endpointSync;
  }

  public void setEndpointSync(Duration endpointSync) {
    this.endpointSync = endpointSync;
  }
}
