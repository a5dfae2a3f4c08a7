package dev.herald.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The channel's declared options: a misspelt one is refused when its definition is saved, naming it
 * and the option meant, and changes nothing; the valid ones are saved as given.
 */
class HttpOptionsTest {
  @TempDir Path dir;

  @Test
  void aMisspeltOptionIsRefusedAtSaveWithTheOptionMeant() {
    try (Herald herald = Herald.builder().h2File(dir.resolve("h")).channel(HttpChannel.builder().allow("127.0.0.0/8").build()).build()) {
      NoticeDefinition good = NoticeDefinition.builder("d").channel("http", "http://127.0.0.1:9/hooks").option("timeout", "5s").option("max-concurrency", "4").option("header.x-tenant", "shop").option("expected-body", "ok").build();
      herald.definitions().save(good);

      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("time-out", "5s").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("options.time-out");
            assertThat(e.reason()).startsWith("unknown option of channel http; did you mean 'timeout'? the known ones are ");
          });
      assertThat(herald.definitions().list()).containsExactly(good);
      assertThat(herald.definitions().find("d")).contains(good);
    }
  }

  @Test
  void theReadmeDocumentsEveryDeclaredOption() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    try (var channel = HttpChannel.builder().allow("127.0.0.0/8").build()) {
      assertThat(channel.options()).isNotEmpty().allSatisfy(o -> assertThat(readme)
          .as("README.md documents option " + o.shown()).contains("`" + o.shown() + "`"));
    }
  }
}
