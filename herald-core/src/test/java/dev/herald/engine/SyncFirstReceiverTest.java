package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.NoticeDefinition;
import org.junit.jupiter.api.Test;

/** The sync-first circuit key: the receiver a notice really goes to. */
class SyncFirstReceiverTest {
  private final NoticeDefinition webhook =
      NoticeDefinition.builder("paid").channel("http", "https://Shop.example/notify?x=1").build();
  private final NoticeDefinition local = NoticeDefinition.builder("sms").handler("sms").build();

  @Test
  void anHttpTargetIsKeyedByItsOriginWithTheDefaultPortMadeExplicit() {
    assertThat(SyncFirst.receiverOf(webhook)).isEqualTo("https://shop.example:443");
    assertThat(SyncFirst.receiverOf(webhook, "HTTPS://SHOP.example:443/other/path"))
        .as("same origin, same receiver").isEqualTo("https://shop.example:443");
    assertThat(SyncFirst.receiverOf(webhook, "http://merchant-b.example/cb")).isEqualTo("http://merchant-b.example:80");
    assertThat(SyncFirst.receiverOf(webhook, "https://merchant-b.example:8443/cb"))
        .isEqualTo("https://merchant-b.example:8443");
    assertThat(SyncFirst.receiverOf(webhook, "http://[::1]:9000/cb")).isEqualTo("http://[::1]:9000");
  }

  @Test
  void otherTargetsAreKeyedByChannelAndTheEffectiveTarget() {
    assertThat(SyncFirst.receiverOf(local)).isEqualTo("local:sms");
    assertThat(SyncFirst.receiverOf(local, null)).isEqualTo("local:sms");
    assertThat(SyncFirst.receiverOf(local, "sms-backup")).isEqualTo("local:sms-backup");
    assertThat(SyncFirst.receiverOf(webhook, "not a url")).isEqualTo("http:not a url");
  }
}
