package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's API examples marked {@code <!-- api-example: name -->} run against the test server as
 * written: every {@code curl} of the block, in order, answers 2xx.
 */
class ReadmeApiExamplesTest extends ServerTest {
  private static final Pattern CURL = Pattern.compile(
      "curl -s(?: -X (\\w+))? \\$API(\\S+)(?: -H \"\\$H\")?(?: -H \"\\$J\")?(?: -d '(.*?)')?\\s*$",
      Pattern.DOTALL | Pattern.MULTILINE);

  @ParameterizedTest
  @ValueSource(strings = {"events", "recurring"})
  void theExampleRunsAsWritten(String name) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String marker = "<!-- api-example: " + name + " -->\n```sh\n";
    int start = readme.indexOf(marker);
    assertThat(start).as("README has the example " + name).isNotNegative();
    String block = readme.substring(start + marker.length(), readme.indexOf("```", start + marker.length()));
    List<String> ran = new ArrayList<>();
    Matcher m = CURL.matcher(block);
    while (m.find()) {
      String method = m.group(1) == null ? "GET" : m.group(1);
      String path = "/api/v1" + m.group(2);
      String body = m.group(3);
      TestServer.Resp r = switch (method) {
        case "POST" -> body == null ? admin.post(path) : admin.post(path, body);
        case "PUT" -> admin.put(path, body);
        case "DELETE" -> admin.delete(path);
        default -> admin.get(path);
      };
      assertThat(r.status()).as(method + " " + path + ": " + r).isBetween(200, 299);
      ran.add(method + " " + path);
    }
    assertThat(ran).as("curl commands of " + name).isNotEmpty();
    assertThat(block.lines().filter(l -> l.startsWith("curl")).count()).isEqualTo(ran.size());
  }
}
