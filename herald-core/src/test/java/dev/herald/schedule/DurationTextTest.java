package dev.herald.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

  @ParameterizedTest
  @CsvSource({
    "250ms, 250",
    "5s, 5000",
    "5m, 300000",
    "1h, 3600000",
    "1d, 86400000",
    "0s, 0",
    "0ms, 0",
    "0, 0",
    "'  5s\t', 5000",
    "007s, 7000",
    "9223372036854775807ms, 9223372036854775807",
  })
  void parsesWholeNumberAndUnit(String text, long millis) {
    assertThat(DurationText.parse(text, "f")).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"5x", "5", "s", "-5s", "+5s", "5 s", "1.5s", "5S", "5sec", "PT5S", "5s5", "0x", "00"})
  void refusesAnythingElse(String text) {
    assertThatThrownBy(() -> DurationText.parse(text, "timeout"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("timeout");
              assertThat(e.reason())
                  .isEqualTo(
                      "'"
                          + text.strip()
                          + "' is not a duration: expected a whole number followed by ms, s, m,"
                          + " h or d (e.g. 5s)");
            });
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"  ", "\t"})
  void refusesBlank(String text) {
    assertThatThrownBy(() -> DurationText.parse(text, "timeout"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("timeout");
              assertThat(e.reason()).isEqualTo("must not be blank");
            });
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"9223372036854775808ms", "106751991167301d", "99999999999999999999999s"})
  void refusesOverflow(String text) {
    assertThatThrownBy(() -> DurationText.parse(text, "timeout"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("timeout");
              assertThat(e.reason()).startsWith("'" + text + "' is too large");
            });
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0s",
    "1, 1ms",
    "1500, 1500ms",
    "2000, 2s",
    "90000, 90s",
    "300000, 5m",
    "5400000, 90m",
    "3600000, 1h",
    "86400000, 1d",
    "172800000, 2d",
    "9223372036854775807, 9223372036854775807ms",
  })
  void formatsWithTheLargestExactUnit(long millis, String text) {
    Duration duration = Duration.ofMillis(millis);
    assertThat(DurationText.format(duration)).isEqualTo(text);
    assertThat(DurationText.parse(text, "f")).isEqualTo(duration);
  }

  @Test
  void refusesToFormatWhatCannotBeParsed() {
    assertThatThrownBy(() -> DurationText.format(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> DurationText.format(Duration.ofNanos(1_500_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whole number of milliseconds");
    assertThatThrownBy(() -> DurationText.format(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most");
  }
}
