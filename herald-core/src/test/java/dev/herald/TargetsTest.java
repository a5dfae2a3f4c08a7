package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Fail-over targets' one codec: a list in, the stored text, the same list back; old texts read the same. */
class TargetsTest {
  @Test
  void aListRoundTripsThroughItsStoredText() {
    Targets t = Targets.of(List.of("https://a.example/x?q=1", "https://b.example/x", "https://c.example/y"));
    assertThat(t.text()).isEqualTo("https://a.example/x?q=1 https://b.example/x https://c.example/y");
    assertThat(Targets.parse(t.text())).isEqualTo(t);
    assertThat(t.first()).isEqualTo("https://a.example/x?q=1");
    Targets one = Targets.of(List.of("https://a.example/x"));
    assertThat(one.text()).as("a lone target is stored as itself").isEqualTo("https://a.example/x");
    assertThat(Targets.parse(one.text())).isEqualTo(one);
  }

  @Test
  void textsWrittenByEarlierVersionsReadTheSame() {
    assertThat(Targets.parse("  https://a.example/x\thttps://b.example/x   https://c.example/x\n").list())
        .containsExactly("https://a.example/x", "https://b.example/x", "https://c.example/x");
    assertThat(Targets.listOf(null)).isEmpty();
    assertThat(Targets.listOf(" ")).isEmpty();
    assertThat(Targets.firstOf("https://a.example/x https://b.example/x")).isEqualTo("https://a.example/x");
    assertThat(Targets.firstOf(null)).isNull();
    assertThat(Targets.listOf("a b c d e f g")).as("a row is read as it is").hasSize(7);
  }

  @Test
  void badListsAreRefusedNamingTheField() {
    assertRefused(() -> Targets.of(List.of()), "target", "at least one target");
    assertRefused(() -> Targets.of(List.of("a", "b", "c", "d", "e", "f")), "target", "at most 5 fail-over targets, got 6");
    assertRefused(() -> Targets.of(List.of("a", " ")), "target", "target 2 of 2 is blank");
    assertRefused(() -> Targets.of(List.of("https://a.example/x https://b.example/x")), "target", "holds whitespace");
    assertRefused(() -> Targets.parse("a b c d e f", "options.fallback-targets"), "options.fallback-targets",
        "at most 5");
    assertRefused(() -> Targets.parse(" ", "notices[2].target"), "notices[2].target", "must not be blank");
    assertRefused(() -> NoticeRequest.of("d", "{}").targets(List.of()), "target", "at least one target");
  }

  private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field,
      String reason) {
    assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      assertThat(e.reason()).contains(reason);
    });
  }
}
