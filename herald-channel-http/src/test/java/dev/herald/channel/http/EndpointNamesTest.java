package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Origins;
import dev.herald.PendingAlert;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The channel names a receiver as the engine's circuits and the alerts do: by its {@link Origins origin}. */
class EndpointNamesTest {

  @Test
  void theChannelTheEngineAndAlertsNameAReceiverAlike() {
    for (String url : List.of("https://Shop.Example/orders", "http://shop.example:8080/cb?x=1", "HTTP://10.0.0.7/",
        "http://[::1]:9000/cb", "https://[2001:DB8::1]/x")) {
      String name = HttpChannel.endpointOf(url);
      assertThat(Origins.of(url)).as(url).isEqualTo(name);
      assertThat(PendingAlert.endpointOf(null, url + " https://backup.example/cb")).as(url).isEqualTo(name);
    }
  }
}
