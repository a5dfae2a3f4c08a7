package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CallbackTargetsTest {
  @Test
  void failoverUrlsRoundTripThroughTheStoredTarget() {
    CallbackTargets t = new CallbackTargets("https://a.example/x", List.of("https://b.example/x", "https://c.example/y"));
    assertThat(t.stored()).isEqualTo("https://a.example/x https://b.example/x https://c.example/y");
    assertThat(CallbackTargets.read(t.stored())).isEqualTo(t);
    CallbackTargets single = new CallbackTargets("https://a.example/x?q=1", List.of());
    assertThat(CallbackTargets.read(single.stored())).isEqualTo(single);
  }

  @Test
  void targetsStoredByEarlierVersionsStillRead() {
    // written by hand or by the channel's own convention: any whitespace between the URLs
    assertThat(CallbackTargets.read("  https://a.example/x\thttps://b.example/x   https://c.example/x\n"))
        .isEqualTo(new CallbackTargets("https://a.example/x", List.of("https://b.example/x", "https://c.example/x")));
    assertThat(CallbackTargets.read(null)).isEqualTo(CallbackTargets.NONE);
    assertThat(CallbackTargets.NONE.stored()).isNull();
  }
}
