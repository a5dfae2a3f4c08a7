package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.DefinitionOption;
import dev.herald.spi.OptionOwner;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Definition options are declared by their readers: a key no one declares is refused at save with
 * the closest declared one, a value of the wrong type names its option, an owner's namespace is its
 * own whatever the channel, and a refused definition changes nothing.
 */
class DefinitionOptionsTest {
  @TempDir Path dir;

  /** Stands for a server's alerts. */
  static final OptionOwner ALERTS = new OptionOwner() {
    @Override
    public String name() {
      return "alerts";
    }

    @Override
    public String namespace() {
      return "alert.";
    }

    @Override
    public List<DefinitionOption> options() {
      return List.of(DefinitionOption.text("alert.email", "who is told"), DefinitionOption.bool("alert.recovered", "tell recoveries"));
    }

    @Override
    public void validate(NoticeDefinition d) {
      String email = d.option("alert.email", null);
      if (email != null && !email.contains("@")) {
        throw new InvalidInputException("options.alert.email", "must be an e-mail address, was '" + email + "'");
      }
    }
  };

  @Test
  void misspeltOptionsAreRefusedAtSaveWithTheClosestKnownOne() {
    try (Herald herald = Herald.builder().h2File(dir.resolve("h")).optionOwner(ALERTS)
        .handler("h", ctx -> dev.herald.DeliveryResult.delivered()).build()) {
      NoticeDefinition good = NoticeDefinition.builder("d").handler("h").option("fail-on", "java.lang.IllegalStateException")
          .option("alert.email", "ops@shop.example").option("alert.recovered", "true").build();
      herald.definitions().save(good);

      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("retry-onn", "java.io.IOException").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("options.retry-onn");
            assertThat(e.reason()).startsWith("unknown option of channel local; did you mean 'retry-on'?")
                .contains("fail-on, retry-on, alert.email, alert.recovered");
          });
      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("alert.emial", "a@b").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("options.alert.emial");
            assertThat(e.reason()).isEqualTo("unknown option of alerts; did you mean 'alert.email'? the known ones are"
                + " alert.email, alert.recovered");
          });
      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("alert.recovered", "yes").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("options.alert.recovered");
            assertThat(e.reason()).isEqualTo("must be true or false, was 'yes'");
          });
      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("alert.email", "nobody").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.alert.email"));
      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("colour", "red").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.reason())
              .startsWith("unknown option of channel local; the known ones are"));

      assertThat(herald.definitions().list()).containsExactly(good);
    }
  }

  @Test
  void typesAreChecked() {
    DefinitionOption timeout = DefinitionOption.duration("timeout", "");
    timeout.check("timeout", "5s");
    assertThatThrownBy(() -> timeout.check("timeout", "5 sec")).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.field()).isEqualTo("options.timeout"));
    DefinitionOption n = DefinitionOption.wholeNumber("max-concurrency", 1, 10_000, "");
    n.check("max-concurrency", " 12 ");
    assertThatThrownBy(() -> n.check("max-concurrency", "0")).hasMessage(
        "options.max-concurrency: must be a whole number from 1 to 10000, was '0'");
    DefinitionOption headers = DefinitionOption.family("header.", "");
    assertThat(headers.matches("header.x-tenant")).isTrue();
    assertThat(headers.matches("header.")).isFalse();
    assertThat(headers.shown()).isEqualTo("header.<name>");
  }
}
