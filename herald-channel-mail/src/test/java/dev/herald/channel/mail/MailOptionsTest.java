package dev.herald.channel.mail;

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
class MailOptionsTest {
  @TempDir Path dir;

  @Test
  void aMisspeltOptionIsRefusedAtSaveWithTheOptionMeant() {
    try (Herald herald = Herald.builder().h2File(dir.resolve("h")).channel(MailChannel.builder().host("127.0.0.1").port(1).from("noreply@shop.example").build()).build()) {
      NoticeDefinition good = NoticeDefinition.builder("d").channel("mail", "orders@shop.example").option("subject", "Order {{id}}").option("text", "Shipped").option("cc", "audit@shop.example").build();
      herald.definitions().save(good);

      assertThatThrownBy(() -> herald.definitions().save(good.toBuilder().option("subjet", "Order").build()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("options.subjet");
            assertThat(e.reason()).startsWith("unknown option of channel mail; did you mean 'subject'? the known ones are ");
          });
      assertThat(herald.definitions().list()).containsExactly(good);
      assertThat(herald.definitions().find("d")).contains(good);
    }
  }

  @Test
  void theReadmeDocumentsEveryDeclaredOption() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    try (var channel = MailChannel.builder().host("127.0.0.1").port(1).from("noreply@shop.example").build()) {
      assertThat(channel.options()).isNotEmpty().allSatisfy(o -> assertThat(readme)
          .as("README.md documents option " + o.shown()).contains("`" + o.shown() + "`"));
    }
  }
}
