package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FieldPathTest {
  @Test
  void theDottedFormReadsBackIntoTheSamePath() {
    for (String dotted : List.of("payload", "definition.retrySchedule", "notices[2].orderingKey", "ids[0]",
        "options.alert.url", "headers[X-Trace]", "a[1][2].b", "[3].x", "a..b")) {
      assertThat(FieldPath.parse(dotted).toString()).as(dotted).isEqualTo(dotted);
    }
    assertThat(FieldPath.parse("notices[2].orderingKey").segments()).containsExactly("notices", 2, "orderingKey");
    assertThat(FieldPath.parse("headers[X-Trace]").segments()).containsExactly("headers[X-Trace]");
  }

  @Test
  void pathsAreBuiltAndRenamedBySegmentNotByText() {
    FieldPath p = FieldPath.of("notices").at(0).then(FieldPath.of("target"));
    assertThat(p.startsWith("notices")).isTrue();
    assertThat(p.renamedLeaf("target", "callbackUrl").toString()).isEqualTo("notices[0].callbackUrl");
    assertThat(FieldPath.of("mytarget").renamedLeaf("target", "url").toString()).isEqualTo("mytarget");
    assertThat(new InvalidInputException(p, "bad").field()).isEqualTo("notices[0].target");
    assertThatThrownBy(() -> new FieldPath(List.of(1.5))).isInstanceOf(IllegalArgumentException.class);
  }
}
