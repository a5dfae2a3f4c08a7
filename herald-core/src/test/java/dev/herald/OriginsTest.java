package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OriginsTest {

  @Test
  void anHttpUrlIsNamedByItsSchemeHostAndExplicitPort() {
    assertThat(Origins.of("HTTPS://Shop.Example/orders?x=1")).isEqualTo("https://shop.example:443");
    assertThat(Origins.of(" http://shop.example/cb ")).isEqualTo("http://shop.example:80");
    assertThat(Origins.of("https://shop.example:8443/cb")).isEqualTo("https://shop.example:8443");
    assertThat(Origins.of("http://[::1]:9000/cb")).isEqualTo("http://[::1]:9000");
    assertThat(Origins.of("http://10.0.0.7/")).isEqualTo("http://10.0.0.7:80");
  }

  @Test
  void anythingElseHasNoOrigin() {
    assertThat(Origins.of(null)).isNull();
    assertThat(Origins.of("sms")).isNull();
    assertThat(Origins.of("amqp://broker/exchange")).isNull();
    assertThat(Origins.of("not a url")).isNull();
    assertThat(Origins.of("https://a.example/x https://b.example/y")).as("a fail-over list").isNull();
    assertThat(Origins.of("mailto:ops@example.com")).isNull();
  }

  @Test
  void aHostWrittenEitherWayIsFormattedAlike() {
    assertThat(Origins.format("http", "::1", 80)).isEqualTo("http://[::1]:80");
    assertThat(Origins.format("http", "[::1]", 80)).isEqualTo("http://[::1]:80");
    assertThat(Origins.format("https", "shop.example", 443)).isEqualTo("https://shop.example:443");
  }
}
